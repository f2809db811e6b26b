package zookeeper

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
)

// Defaults and bounds.
const (
	// DefaultPrefix is the parent path of the election nodes when
	// Options.Prefix is empty.
	DefaultPrefix = "/leasehold"
	// DefaultTickTime is ZooKeeper's default tickTime, used when
	// Options.TickTime is zero.
	DefaultTickTime = 2 * time.Second
	// MaxValueSize is the largest leader value, in bytes: ZooKeeper's
	// default jute.maxbuffer (1 MiB − 1 byte) less room for the request's
	// path, ACLs and headers.
	MaxValueSize = 1_000_000
)

// readTimeout is the session timeout asked for the Store's own connection
// (open only while no session's can serve reads), clamped to the TTL
// limits. It only bounds how fast go-zookeeper notices a dead server on
// that connection; no election depends on it.
const readTimeout = 10 * time.Second

// Auth is one set of credentials added to every connection with
// zk.Conn.AddAuth before it is used.
type Auth struct {
	// Scheme is the authentication scheme, e.g. "digest".
	Scheme string
	// Credentials are the scheme's credentials, e.g. "user:password" for
	// digest.
	Credentials []byte
}

// Options configure a Store. The zero value of every field means its
// default.
type Options struct {
	// Prefix is the path of the node under which election nodes are
	// created: election "a/b" is node Prefix + "/a%2Fb" (names never nest). It must be a valid
	// absolute ZooKeeper path other than "/" and outside "/zookeeper".
	// Missing parents are created as persistent nodes. Default
	// DefaultPrefix.
	Prefix string

	// ACL is the ACL of every node the Store creates: pointer nodes and
	// their free children, queue nodes and entries, lead entries, roster
	// records, guarded-write data nodes, and the
	// missing parents of all of them, Prefix included. Nodes that exist keep the ACL they
	// have. Default, without Auth: zk.WorldACL(zk.PermAll) (ZooKeeper's
	// OPEN_ACL_UNSAFE), which protects nothing: any client can read,
	// change and delete the nodes, and so end a holder's leadership. With
	// Auth: zk.AuthACL(zk.PermAll) (CREATOR_ALL_ACL: all rights to the
	// identities the credentials authenticate, and to no one else) plus
	// zk.WorldACL(zk.PermRead) (anyone may read leader values) unless
	// NoWorldRead.
	ACL []zk.ACL

	// NoWorldRead drops world read from the default ACL with Auth: only
	// the credentials' identities may read the nodes, so observers need
	// credentials too. It needs Auth and no ACL. Default false.
	NoWorldRead bool

	// Auth lists credentials added to every connection before use, e.g.
	// {Scheme: "digest", Credentials: []byte("user:password")}. ZooKeeper
	// accepts any digest when it is added; a wrong password shows only
	// where a node's ACL does not match it. So NewSession checks, after
	// adding the credentials, that they may create and delete nodes under
	// Prefix (creating Prefix if it is missing), and fails with an error
	// wrapping backends.ErrPermission that names Prefix and the user (never
	// the password) if not. Default none.
	Auth []Auth

	// TickTime is the servers' tickTime. The TTL limits default to what
	// ZooKeeper derives from it: minSessionTimeout = 2×TickTime and
	// maxSessionTimeout = 20×TickTime. Default DefaultTickTime (2s).
	TickTime time.Duration

	// MinTTL and MaxTTL are the servers' minSessionTimeout and
	// maxSessionTimeout, if zoo.cfg sets them. Defaults 2×TickTime and
	// 20×TickTime; whole milliseconds, MinTTL ≤ MaxTTL. A session whose
	// negotiated timeout is below the TTL asked fails to open, so a
	// MaxTTL above the servers' makes NewSession fail instead of lying.
	MinTTL, MaxTTL time.Duration

	// TLS, if set, is the client configuration of every connection the
	// Store opens: each one is a TLS connection to a server's
	// secureClientPort (ZooKeeper 3.5 and later, with the Netty connection
	// factory). Its ServerName defaults to the host of the address
	// dialed. Default nil: plain TCP.
	TLS *tls.Config

	// Logger receives go-zookeeper's log lines (connections made and lost,
	// sessions established), at Debug, or at Warn for failures and errors,
	// with the attribute "component"="go-zookeeper". Default nil: nothing
	// is logged, as package lease logs nothing unless given a Logger.
	Logger *slog.Logger

	// ConnOptions are passed to zk.Connect for every connection the Store
	// opens, after the logger Logger sets up, so a zk.WithLogger here
	// replaces it. The Store sets the dialer, the host provider and the
	// event callback itself: a zk.WithDialer, zk.WithHostProvider or
	// zk.WithEventCallback here is overridden. Default none.
	ConnOptions []func(*zk.Conn)
}

func (o Options) withDefaults() Options {
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.ACL == nil {
		o.ACL = defaultACL(o.Auth, o.NoWorldRead)
	}
	if o.TickTime == 0 {
		o.TickTime = DefaultTickTime
	}
	if o.MinTTL == 0 {
		o.MinTTL = 2 * o.TickTime
	}
	if o.MaxTTL == 0 {
		o.MaxTTL = 20 * o.TickTime
	}
	return o
}

// logger returns Logger, or a logger that discards everything.
func (o Options) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// Validate reports the error New would return for o before contacting
// any server: a malformed Prefix, a TickTime or TTL bound that is not
// whole milliseconds, an ACL or Auth that is inconsistent. It contacts no
// server. Zero fields are checked as New defaults them.
func (o Options) Validate() error {
	switch { // the ACL options as the caller gave them
	case o.NoWorldRead && len(o.Auth) == 0:
		return errors.New("zookeeper: NoWorldRead needs Auth: without credentials no one could read or change the nodes")
	case o.NoWorldRead && o.ACL != nil:
		return errors.New("zookeeper: NoWorldRead and ACL are both set: NoWorldRead only changes the default ACL")
	}
	return o.withDefaults().validate()
}

// validate checks defaulted options.
func (o Options) validate() error {
	if err := validatePrefix(o.Prefix); err != nil {
		return err
	}
	switch {
	case len(o.ACL) == 0:
		return errors.New("zookeeper: ACL is empty: leave it nil for the default (see Options.ACL)")
	case o.TickTime < time.Millisecond || o.TickTime%time.Millisecond != 0:
		return fmt.Errorf("zookeeper: TickTime %v must be whole milliseconds, at least 1ms (the servers' tickTime; zero means %v)",
			o.TickTime, DefaultTickTime)
	case o.MinTTL <= 0 || o.MaxTTL < o.MinTTL:
		return fmt.Errorf("zookeeper: MinTTL %v and MaxTTL %v must satisfy 0 < MinTTL ≤ MaxTTL", o.MinTTL, o.MaxTTL)
	case o.MinTTL%time.Millisecond != 0 || o.MaxTTL%time.Millisecond != 0:
		return fmt.Errorf("zookeeper: MinTTL %v and MaxTTL %v must be whole milliseconds", o.MinTTL, o.MaxTTL)
	}
	for i, a := range o.Auth {
		if a.Scheme == "" {
			return fmt.Errorf("zookeeper: Auth[%d] has no scheme: want e.g. \"digest\"", i)
		}
		if user, _, ok := strings.Cut(string(a.Credentials), ":"); a.Scheme == "digest" && (!ok || user == "") {
			return fmt.Errorf("zookeeper: Auth[%d]: digest credentials must be \"user:password\" with a user", i)
		}
	}
	return nil
}

// connect is the option that applies the caller's ConnOptions and then the
// Store's own.
func (o Options) connect(l *link) func(*zk.Conn) {
	return func(c *zk.Conn) {
		zk.WithLogger(zkLogger{o.logger()})(c)
		for _, opt := range o.ConnOptions {
			opt(c)
		}
		zk.WithDialer(l.dial)(c)
		zk.WithHostProvider(hosts{zk.NewDNSHostProvider(), l})(c)
		zk.WithEventCallback(l.event)(c)
	}
}
