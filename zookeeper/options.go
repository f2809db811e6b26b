package zookeeper

import (
	"crypto/tls"
	"errors"
	"fmt"
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

// readTimeout is the session timeout asked for the Store's own connection,
// clamped to the TTL limits. It only bounds how fast go-zookeeper notices a
// dead server on that connection; no election depends on it.
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
	// created: election "a/b" is node Prefix + "/a/b". It must be a valid
	// absolute ZooKeeper path other than "/" and outside "/zookeeper".
	// Missing parents are created as persistent nodes. Default
	// DefaultPrefix.
	Prefix string

	// ACL is the ACL of every node the Store creates, parents included.
	// Default zk.WorldACL(zk.PermAll).
	ACL []zk.ACL

	// Auth lists credentials added to every connection before use (for
	// ACLs such as zk.DigestACL). Default none.
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

	// ConnOptions are passed to zk.Connect for every connection the Store
	// opens, e.g. zk.WithLogger(l) or zk.WithLogInfo(false). The Store
	// sets the dialer, the host provider and the event callback itself: a
	// zk.WithDialer, zk.WithHostProvider or zk.WithEventCallback here is
	// overridden. Default none.
	ConnOptions []func(*zk.Conn)
}

func (o Options) withDefaults() Options {
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.ACL == nil {
		o.ACL = zk.WorldACL(zk.PermAll)
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

// validate checks defaulted options.
func (o Options) validate() error {
	if err := validatePrefix(o.Prefix); err != nil {
		return err
	}
	switch {
	case len(o.ACL) == 0:
		return errors.New("zookeeper: ACL is empty: leave it nil for zk.WorldACL(zk.PermAll)")
	case o.TickTime < 0:
		return fmt.Errorf("zookeeper: TickTime %v must be positive", o.TickTime)
	case o.MinTTL <= 0 || o.MaxTTL < o.MinTTL:
		return fmt.Errorf("zookeeper: MinTTL %v and MaxTTL %v must satisfy 0 < MinTTL ≤ MaxTTL", o.MinTTL, o.MaxTTL)
	case o.MinTTL%time.Millisecond != 0 || o.MaxTTL%time.Millisecond != 0:
		return fmt.Errorf("zookeeper: MinTTL %v and MaxTTL %v must be whole milliseconds", o.MinTTL, o.MaxTTL)
	}
	for i, a := range o.Auth {
		if a.Scheme == "" {
			return fmt.Errorf("zookeeper: Auth[%d] has no scheme: want e.g. \"digest\"", i)
		}
	}
	return nil
}

// connect is the option that applies the caller's ConnOptions and then the
// Store's own.
func (o Options) connect(l *link) func(*zk.Conn) {
	return func(c *zk.Conn) {
		for _, opt := range o.ConnOptions {
			opt(c)
		}
		zk.WithDialer(l.dial)(c)
		zk.WithHostProvider(hosts{zk.NewDNSHostProvider(), l})(c)
		zk.WithEventCallback(l.event)(c)
	}
}
