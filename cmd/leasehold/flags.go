package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/storeurl"
)

// common holds the flags every store command takes.
type common struct {
	store, election, user, logLevel string
	identity                        string
	ttl, margin                     time.Duration
	queue                           bool
	tls                             storeurl.Options
}

// register adds the common flags to fs, named as etcdctl and consul name
// them where they have a counterpart.
func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.store, "store", os.Getenv("LEASEHOLD_STORE"),
		"store URL: etcd://host:port[,host:port]/prefix, zk://host:port[,...]/prefix[?tick=2s], consul://host:port/prefix; etcds, zks, consuls: TLS (env LEASEHOLD_STORE)")
	fs.StringVar(&c.election, "election", "", "election name: segments of [A-Za-z0-9._-] separated by '/'")
	fs.DurationVar(&c.ttl, "ttl", lease.DefaultTTL, "session TTL (etcd: whole seconds ≥ 2s; ZooKeeper: 2–20 tickTime; Consul: 10s–24h)")
	fs.DurationVar(&c.margin, "margin", 0, "safety margin: the leader stops this long before the store could free the key (default TTL/4)")
	fs.StringVar(&c.identity, "identity", "", "value stored in the leader key (default hostname/pid/random)")
	fs.BoolVar(&c.queue, "queue", false, "wait in line: watch only the candidate ahead, not the leader key (lease.Options.Queue)")
	fs.StringVar(&c.tls.CACert, "cacert", "", "verify the store's TLS certificate with this CA bundle; any of --cacert, --cert, --key turns TLS on")
	fs.StringVar(&c.tls.Cert, "cert", "", "client TLS certificate (mutual TLS)")
	fs.StringVar(&c.tls.Key, "key", "", "client TLS key (mutual TLS)")
	fs.StringVar(&c.user, "user", "", "etcd user[:password]; without a password, LEASEHOLD_PASSWORD is used")
	fs.StringVar(&c.tls.Token, "token", os.Getenv("CONSUL_HTTP_TOKEN"), "Consul ACL token (env CONSUL_HTTP_TOKEN)")
	fs.StringVar(&c.tls.ZKDigest, "zk-digest", os.Getenv("LEASEHOLD_ZK_DIGEST"), "ZooKeeper digest auth user:password (env LEASEHOLD_ZK_DIGEST)")
	fs.DurationVar(&c.tls.DialTimeout, "dial-timeout", 5*time.Second, "time allowed for the first contact with the store (connect, TLS handshake, first answer)")
	fs.StringVar(&c.logLevel, "log-level", "warn", "log level on stderr: debug, info, warn, error")
}

// check reports the first missing required flag.
func (c *common) check() error {
	if c.store == "" {
		return fmt.Errorf("--store is required, e.g. --store etcd://127.0.0.1:2379/leasehold")
	}
	if c.election == "" {
		return fmt.Errorf("--election is required, e.g. --election jobs/nightly")
	}
	return nil
}

// open connects to the store and builds an elector on it.
func (c *common) open(ctx context.Context, stderr io.Writer) (*lease.LeaseElector, func(), error) {
	if err := c.check(); err != nil {
		return nil, nil, err
	}
	opts := c.tls
	opts.Username, opts.Password, _ = strings.Cut(c.user, ":")
	if c.user != "" && opts.Password == "" {
		opts.Password = os.Getenv("LEASEHOLD_PASSWORD")
	}
	st, err := storeurl.Open(ctx, c.store, opts)
	if err != nil {
		return nil, nil, err
	}
	e, err := lease.New(st.Store, lease.Options{TTL: c.ttl, SafetyMargin: c.margin, Identity: c.identity,
		Queue: c.queue, Logger: c.logger(stderr)})
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	closeAll := func() {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = e.Close(cctx)
		st.Close()
	}
	return e, closeAll, nil
}

func (c *common) logger(w io.Writer) *slog.Logger {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(c.logLevel)); err != nil {
		lvl = slog.LevelWarn
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: lvl}))
}

// errHelp is returned after -h printed a command's usage.
var errHelp = flag.ErrHelp

// parse parses args into fs, printing usage on stdout for -h.
func parse(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if err == flag.ErrHelp {
		fs.SetOutput(os.Stdout)
		fs.Usage()
	}
	return err
}
