package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/storeurl"
)

// common holds the flags every store command takes.
type common struct {
	store, election, user, logLevel string
	identity                        string
	passwordFile, tokenFile         string
	ttl, margin                     time.Duration
	wait                            string
	tls                             storeurl.Options
	// query is set by status and observe, which neither campaign nor
	// write (see open).
	query bool
	// policy is the candidacy flags; only run registers them.
	policy policy
	// group is set by the shards commands, which name a group instead
	// of an election: --election is then neither registered nor checked.
	group bool
}

// register adds the common flags to fs, named as etcdctl and consul name
// them where they have a counterpart.
func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.store, "store", os.Getenv("LEASEHOLD_STORE"),
		"store URL: etcd://[user[:password]@]host:port[,host:port]/prefix, zk://[user:password@]host:port[,...]/prefix[?tick=2s], consul://host:port/prefix; etcds, zks, consuls: TLS (env LEASEHOLD_STORE)")
	if c.group {
		fs.StringVar(&c.election, "group", "", "shard group name: segments of [A-Za-z0-9._-] separated by '/'")
	} else {
		fs.StringVar(&c.election, "election", "", "election name: segments of [A-Za-z0-9._-] separated by '/'")
	}
	c.ttl = lease.DefaultTTL
	fs.Var(durationFlag{&c.ttl, "a duration in the store's range: " + ttlRange}, "ttl", "session TTL, a `duration` in the store's range: "+ttlRange)
	fs.DurationVar(&c.margin, "margin", 0, "safety margin: the leader stops this long before the store could free the key (default TTL/4)")
	fs.StringVar(&c.identity, "identity", "", "value stored in the leader key (default hostname/pid/random)")
	fs.StringVar(&c.wait, "wait", "queue", "how to wait while another leads: queue (in line, watching only the candidate ahead: a release wakes one waiter) or key (every waiter watches the leader key) (lease.Options.Wait)")
	fs.StringVar(&c.tls.CACert, "cacert", "", "verify the store's TLS certificate with this CA bundle; any of --cacert, --cert, --key turns TLS on")
	fs.StringVar(&c.tls.Cert, "cert", "", "client TLS certificate (mutual TLS)")
	fs.StringVar(&c.tls.Key, "key", "", "client TLS key (mutual TLS)")
	fs.StringVar(&c.user, "user", "", "user[:password] for etcd, or for ZooKeeper digest auth; without a password, --password-file or LEASEHOLD_PASSWORD")
	fs.StringVar(&c.passwordFile, "password-file", "", "read the password of the user (--user or the URL's) from this file, keeping it out of ps")
	fs.StringVar(&c.tls.Token, "token", "", "Consul ACL token (default CONSUL_HTTP_TOKEN)")
	fs.StringVar(&c.tokenFile, "token-file", "", "read the Consul ACL token from this file, keeping it out of ps")
	fs.StringVar(&c.tls.ZKDigest, "zk-digest", "", "ZooKeeper digest auth user:password (default LEASEHOLD_ZK_DIGEST)")
	fs.DurationVar(&c.tls.DialTimeout, "dial-timeout", 5*time.Second, "time allowed for the first contact with the store (connect, TLS handshake, first answer)")
	fs.StringVar(&c.logLevel, "log-level", "warn", "log level on stderr: "+strings.Join(logLevels, ", "))
}

// check reports the first missing or malformed flag that needs no store.
func (c *common) check() error {
	if c.store == "" {
		return fmt.Errorf("--store is required, e.g. --store etcd://127.0.0.1:2379/leasehold")
	}
	name := "election"
	if c.group {
		name = "group"
	}
	if c.election == "" {
		return fmt.Errorf("--%s is required, e.g. --%s jobs/nightly", name, name)
	}
	if err := backends.ValidateElection(c.election); err != nil {
		return fmt.Errorf("--%s: %v", name, err)
	}
	if err := c.checkDurations(); err != nil {
		return err
	}
	if _, err := parseLevel(c.logLevel); err != nil {
		return err
	}
	if _, err := parseWait(c.wait); err != nil {
		return err
	}
	return nil
}

// checkDurations refuses a duration flag out of its range. A query
// (status, observe) uses neither --ttl nor --margin.
func (c *common) checkDurations() error {
	switch {
	case c.tls.DialTimeout <= 0:
		return fmt.Errorf("--dial-timeout %v: want a duration above 0, e.g. 5s", c.tls.DialTimeout)
	case c.query:
	case c.ttl <= 0:
		return fmt.Errorf("--ttl %v: want a duration in the store's range: %s", c.ttl, ttlRange)
	case c.margin < 0:
		return fmt.Errorf("--margin %v: want 0 (the default, TTL/4) or a duration below --ttl", c.margin)
	}
	return nil
}

// ttlRange is the --ttl each store takes (lease.New checks the store's
// own limits).
const ttlRange = "etcd: whole seconds ≥ 2s; ZooKeeper: 2–20 tickTime; Consul: 10s–24h"

// durationFlag is a duration flag whose error for a value that does not
// parse says what the flag takes (the flag package says "parse error").
type durationFlag struct {
	d    *time.Duration
	want string
}

func (f durationFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want %s", f.want)
	}
	*f.d = d
	return nil
}

func (f durationFlag) String() string {
	if f.d == nil {
		return "0s"
	}
	return f.d.String()
}

// countFlag is an int flag that takes lo to hi only, and whose error
// says so (the flag package says "parse error" or takes any int).
type countFlag struct {
	n      *int
	lo, hi int
}

func (f countFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < f.lo || n > f.hi {
		return fmt.Errorf("want a whole number from %d to %d", f.lo, f.hi)
	}
	*f.n = n
	return nil
}

func (f countFlag) String() string {
	if f.n == nil {
		return "0"
	}
	return strconv.Itoa(*f.n)
}

// waitModes are the values --wait takes.
var waitModes = []lease.WaitMode{lease.WaitQueue, lease.WaitKey}

func parseWait(s string) (lease.WaitMode, error) {
	for _, m := range waitModes {
		if s == m.String() {
			return m, nil
		}
	}
	return 0, fmt.Errorf("--wait %q: want %v or %v", s, lease.WaitQueue, lease.WaitKey)
}

// logLevels are the values --log-level takes.
var logLevels = []string{"debug", "info", "warn", "error"}

func parseLevel(s string) (slog.Level, error) {
	var lvl slog.Level
	if !slices.Contains(logLevels, strings.ToLower(s)) || lvl.UnmarshalText([]byte(s)) != nil {
		return 0, fmt.Errorf("--log-level %q: want one of %s", s, strings.Join(logLevels, ", "))
	}
	return lvl, nil
}

// electorFlags names the flags that make the elector's options.
const electorFlags = "--ttl, --margin, --identity, --wait, --label, --preempt-after or --damp*"

// open connects to the store and builds an elector on it. The elector's
// options are checked first, as far as they can be without the store
// (lease.Options.Validate), so that a bad one is refused before any
// connection (exit 2); the store's own limits (its TTL range) are
// checked once it is open. A query (status, observe) takes a TTL in the
// store's range, used only to pace its requests, whatever --ttl, --margin
// and --identity say.
func (c *common) open(ctx context.Context, stderr io.Writer) (*lease.LeaseElector, func(), error) {
	if err := c.check(); err != nil {
		return nil, nil, usageError{err}
	}
	log := c.logger(stderr)
	opts, err := c.storeOptions()
	if err != nil {
		return nil, nil, err
	}
	opts.Logger = log
	wait, _ := parseWait(c.wait) // checked above
	lo := lease.Options{TTL: c.ttl, SafetyMargin: c.margin, Identity: c.identity, Wait: wait, Logger: log}
	c.policy.apply(&lo)
	if !c.query {
		if err := lo.Validate(); err != nil {
			return nil, nil, usageError{fmt.Errorf("%s: %w", electorFlags, err)}
		}
	}
	st, err := storeurl.Open(ctx, c.store, opts)
	if err != nil {
		return nil, nil, err
	}
	if c.query {
		lo = lease.Options{TTL: queryTTL(st.Store.Limits()), Logger: log}
	}
	e, err := lease.New(st.Store, lo)
	if err != nil {
		st.Close()
		return nil, nil, fmt.Errorf("%s: %w", electorFlags, err)
	}
	closeAll := func() {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = e.Close(cctx)
		st.Close()
	}
	return e, closeAll, nil
}

// queryTTL is lease.DefaultTTL brought into the store's range and unit.
func queryTTL(lim backends.Limits) time.Duration {
	ttl := lease.DefaultTTL
	if lim.MaxTTL > 0 && ttl > lim.MaxTTL {
		ttl = lim.MaxTTL
	}
	if ttl < lim.MinTTL {
		ttl = lim.MinTTL
	}
	if g := lim.TTLGranularity; g > 0 && ttl%g != 0 {
		ttl += g - ttl%g
	}
	return ttl
}

func (c *common) logger(w io.Writer) *slog.Logger {
	lvl, err := parseLevel(c.logLevel)
	if err != nil {
		lvl = slog.LevelWarn // not reached: check refused it
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: lvl}))
}

// usageError is an error in the command line: leasehold exits 2.
type usageError struct{ error }

func (u usageError) Unwrap() error { return u.error }

// isUsage reports whether err is the command line's fault (exit 2): a
// usageError, a store URL or credentials that are wrong in themselves, or
// an option the store's limits refuse.
func isUsage(err error) bool {
	var u usageError
	return errors.As(err, &u) || errors.Is(err, storeurl.ErrInvalid) || errors.Is(err, lease.ErrInvalidOption)
}

// errHelp is returned after -h printed a command's usage.
var errHelp = flag.ErrHelp

// isHelp reports whether arg asks for help as the flag package takes it.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "--h" || arg == "-help" || arg == "--help"
}

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
