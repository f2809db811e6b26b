// Package storeurl opens a backends.Store from a URL, as the leasehold
// command does:
//
//	etcd://[user[:password]@]host:port[,host:port...]/prefix
//	zk://[user:password@]host:port[,host:port...]/prefix[?tick=2s]
//	consul://host:port/prefix[?session-node=NAME]
//
// The path is the key prefix (default: the adapter's). A query parameter
// the scheme does not take, or one given twice, is an error.
//
// User info, percent-encoded as in any URL, is the etcd user and password
// (as etcdctl --user takes them) or the ZooKeeper digest credentials.
// Consul has no user, only ACL tokens: a consul URL with user info is an
// error, and the token goes in Options.Token. Credentials may instead come
// in Options, which keeps them out of process listings; giving one in both
// places is an error. Errors never contain a password: they show the URL
// with the password replaced by "xxxxx" (see URL.String), even a URL too
// malformed to parse.
//
// TLS files come in Options. TLS is on, for every store, when any of
// Options.CACert, Cert and Key is set, or with the schemes etcds, zks and
// consuls (which verify the servers with the system's roots unless CACert
// is set).
//
// Open checks the addresses (a host, and a port in 1..65535) and makes a
// first contact with the store within Options.DialTimeout: an error then
// names the endpoint and the cause (refused, unreachable, a TLS failure),
// not a deadline. This package links all three adapters; an application
// that uses one store imports that adapter directly instead.
//
// # First contact
//
// The first contact is one exchange: etcd a member's status, Consul the
// cluster's leader, ZooKeeper a session (closed at once). What it reports,
// as integration/tls_test.go checks against TLS servers (2026-11-23,
// 8f99d9e: each case failed within 60 ms there; under a loaded
// race-enabled run the ZooKeeper plaintext case took up to 2.1 s, a
// second of it go-zookeeper closing the Store's own connection):
//   - no client certificate: "tls: certificate required" (ZooKeeper:
//     "tls: handshake failure", with a note that the server may require a
//     client certificate);
//   - a client certificate from another CA: the same ("certificate
//     required" on etcd and Consul, as Go sends no certificate the
//     server's CA list does not cover; ZooKeeper's with a note that the
//     server may not trust the certificate's CA);
//   - a wrong CACert: "x509: certificate signed by unknown authority";
//   - plaintext to a TLS port: etcd "error reading server preface: EOF"
//     and ZooKeeper "the server closed the connection", each with a note
//     that the address answers a TLS handshake; Consul "Client sent an
//     HTTP request to an HTTPS server";
//   - a closed port: "connection refused" (etcd with a user is first
//     contacted without it: clientv3 authenticates as it connects, and
//     would report the refusal only at DialTimeout); a bad port or an
//     empty host: refused at parse, before any connection;
//   - a server that accepts the connection and never answers: "no answer
//     within --dial-timeout", after DialTimeout.
//
// Later, the same certificate failures are backends.ErrTLS, which package
// lease never retries, also on a Store built without this package. On
// Consul and ZooKeeper errors.As finds the x509 or
// *tls.CertificateVerificationError in the chain; on etcd gRPC passes the
// failure on as text only, and a Campaign returns it after one
// RequestTimeout (clientv3 waits for a ready connection until the call's
// deadline), where on Consul and ZooKeeper it returned within 170 ms
// (2026-11-28, ac837ad; 1.1 s in a race-enabled run, 5f08286). ZooKeeper
// reports it once every server was tried.
package storeurl

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// Options hold what a URL does not.
type Options struct {
	// CACert, Cert and Key are PEM files for TLS: CACert verifies the
	// servers, Cert and Key authenticate the client. Setting any of them
	// turns TLS on.
	CACert, Cert, Key string
	// Username and Password authenticate to etcd, or to ZooKeeper with
	// the digest scheme (as ZKDigest "Username:Password" would). A URL's
	// user info sets them; a user or password given both there and here
	// is an error.
	Username, Password string
	// Token is a Consul ACL token. Consul only.
	Token string
	// ZKDigest is "user:password" for ZooKeeper digest authentication.
	// ZooKeeper only; not together with a user.
	ZKDigest string
	// DialTimeout bounds the first contact Open makes with the store. Default 5 s.
	DialTimeout time.Duration
	// Logger receives the store client's own logs: go-zookeeper's
	// (zookeeper.Options.Logger). Default: none.
	Logger *slog.Logger
}

// Opened is a Store with the client it was opened on: pass Opened.Store
// to lease.New.
type Opened struct {
	Store *backends.Store
	close func() error
}

// Close closes what Open opened: the client (etcd, Consul) or the
// Store's own connections (ZooKeeper).
func (o *Opened) Close() error { return o.close() }

// ErrInvalid matches (errors.Is) the errors of Parse and Open that come
// from the URL or the Options themselves (a malformed URL, an unknown
// scheme or query parameter, an address without a host or with a port
// outside 1..65535, a credential given twice or to a store that does not
// take it, a TLS file that cannot be read or holds no certificate), as
// opposed to a store that cannot be reached or refuses. A prefix the
// adapter refuses is its error, not ErrInvalid.
var ErrInvalid = errors.New("invalid store URL or options")

// Open parses raw and connects to the store it names. Errors name the part
// of the URL or the option that is wrong, and never contain the password:
// they show the URL as URL.String does.
func Open(ctx context.Context, raw string, opts Options) (*Opened, error) {
	p, err := Parse(raw)
	if err != nil {
		return nil, err
	}
	if opts, err = p.credentials(opts); err != nil {
		return nil, err
	}
	if opts.DialTimeout == 0 {
		opts.DialTimeout = 5 * time.Second
	}
	switch p.kind {
	case etcdKind:
		return openEtcd(ctx, p.Hosts, p.u, opts)
	case zkKind:
		return openZooKeeper(p.Hosts, p.u, opts)
	}
	return openConsul(ctx, p.Hosts, p.u, opts)
}

// URL is a parsed store URL.
type URL struct {
	// Scheme is etcd, etcds, zk, zookeeper, zks, consul or consuls.
	Scheme string
	// Hosts are the URL's host:port addresses, in order.
	Hosts []string
	// Username and Password are the URL's percent-decoded user info;
	// empty if it has none.
	Username, Password string

	kind        kind
	hasPassword bool
	u           *url.URL // without user info
}

// HasPassword reports whether the URL carries a password (possibly empty,
// as in "user:@host").
func (p *URL) HasPassword() bool { return p.hasPassword }

// String returns the URL with its password, if any, replaced by "xxxxx".
func (p *URL) String() string {
	if p.Username == "" {
		return p.u.String()
	}
	v := *p.u
	if p.hasPassword {
		v.User = url.UserPassword(p.Username, redactedPassword)
	} else {
		v.User = url.User(p.Username)
	}
	return v.String()
}

// Parse parses a store URL (see the package doc) without connecting.
// Errors match ErrInvalid and quote the URL with its password replaced by
// "xxxxx", even when the URL is malformed.
func Parse(raw string) (*URL, error) {
	shown := redact(raw)
	before, info, after, hasInfo := splitUserinfo(raw)
	if _, ok := schemeEnd(raw); !ok {
		return nil, invalidf("store URL %q: want SCHEME://host:port[,host:port]/prefix", shown)
	}
	rest := raw
	if hasInfo {
		rest = before + after[1:]
	}
	u, err := url.Parse(rest)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, invalidf("store URL %q: %v", shown, err)
	}
	p := &URL{Scheme: u.Scheme, kind: kinds[u.Scheme], u: u}
	if err := p.check(shown); err != nil {
		return nil, err
	}
	p.Hosts = strings.Split(u.Host, ",")
	if hasInfo {
		if p.Username, p.Password, p.hasPassword, err = parseUserinfo(info); err != nil {
			return nil, invalidf("store URL %q: %v", shown, err)
		}
	}
	return p, nil
}

// kind is a store: the schemes that name it share its openers and rules.
type kind int

const (
	etcdKind kind = iota + 1
	zkKind
	consulKind
)

// kinds maps each scheme to its store.
var kinds = map[string]kind{
	"etcd": etcdKind, "etcds": etcdKind,
	"zk": zkKind, "zookeeper": zkKind, "zks": zkKind,
	"consul": consulKind, "consuls": consulKind,
}

// knownParams are the query parameters each store's URL takes.
var knownParams = map[kind][]string{etcdKind: nil, zkKind: {"tick"}, consulKind: {"session-node"}}

// check checks the scheme, the host, and the query parameters: each known
// to the scheme, given once and not empty.
func (p *URL) check(shown string) error {
	bad := func(format string, args ...any) error {
		return invalidf("store URL %q: %s", shown, fmt.Sprintf(format, args...))
	}
	known := knownParams[p.kind]
	switch {
	case p.kind == 0:
		return bad("unknown scheme %q: want etcd, etcds, zk, zks, consul or consuls", p.Scheme)
	case p.u.Host == "":
		return bad("no host: want %s://host:port[,host:port]/prefix", p.Scheme)
	case p.u.Fragment != "":
		return bad("a fragment (#...) means nothing in a store URL")
	}
	q, err := url.ParseQuery(p.u.RawQuery)
	if err != nil {
		return bad("query: %v", err)
	}
	for k, v := range q {
		switch {
		case !slices.Contains(known, k):
			return bad("unknown query parameter %q: %s takes %s", k, p.Scheme, paramList(known))
		case len(v) > 1:
			return bad("query parameter %q given %d times: give it once", k, len(v))
		case v[0] == "":
			return bad("query parameter %q has no value", k)
		}
	}
	return nil
}

func paramList(known []string) string {
	if len(known) == 0 {
		return "none"
	}
	return strings.Join(known, ", ")
}

// invalidError is an error in a store URL or Options: it is ErrInvalid
// for errors.Is, without ErrInvalid's words in its message, and unwraps to
// the error its format wrapped with %w, if any (a missing file's
// fs.ErrNotExist).
type invalidError struct{ err error }

func (e *invalidError) Error() string        { return e.err.Error() }
func (e *invalidError) Is(target error) bool { return target == ErrInvalid }
func (e *invalidError) Unwrap() error        { return errors.Unwrap(e.err) }

func invalidf(format string, args ...any) error {
	return &invalidError{fmt.Errorf(format, args...)}
}

// invalid returns an error about p that is ErrInvalid.
func (p *URL) invalid(format string, args ...any) error {
	return invalidf("store URL %q: %s", p.String(), fmt.Sprintf(format, args...))
}

func (o Options) tls() bool { return o.CACert != "" || o.Cert != "" || o.Key != "" }
