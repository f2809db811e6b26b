package consul

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/keys"
)

// DefaultPrefix is the key prefix used when Options.Prefix is empty.
const DefaultPrefix = "leasehold/"

// Store limits. Consul grants session TTLs from 10 s (a server's default
// session_ttl_min) to 24 h, parsed as Go durations, so any duration in
// range is accepted.
const (
	MinTTL = 10 * time.Second
	MaxTTL = 24 * time.Hour
	// MaxValueSize stays well below the 512 KiB a Consul transaction
	// request may take: values travel in it base64-encoded.
	MaxValueSize = 256 << 10
	// MaxCalls bounds an elector's election calls in flight: the api
	// client serves each request in flight on a connection of its own, and
	// an agent refuses a client address more than 200 connections
	// (limits.http_max_conns_per_client). With a blocking query and a
	// renewal beside them, 8 calls let about 20 members share one agent.
	MaxCalls = 8
)

// Lock-delay and wait-time bounds.
const (
	// DefaultLockDelay is the smallest lock-delay the api package can
	// send: it omits a zero LockDelay, and the server then applies 15 s.
	DefaultLockDelay = time.Millisecond
	// MaxLockDelay is Consul's cap on a session's lock-delay.
	MaxLockDelay = 60 * time.Second
	// DefaultWaitTime is the wait time of one blocking query.
	DefaultWaitTime = 5 * time.Minute
	// MaxWaitTime is Consul's cap on a blocking query's wait time.
	MaxWaitTime = 10 * time.Minute
)

// SessionName is the name given to every session this package creates, as
// shown by "consul operator" tools and /v1/session/list.
const SessionName = "leasehold"

// Options configure a Store. The zero value of every field means its
// default.
type Options struct {
	// Prefix is prepended to every election name to form its KV key. It
	// must be one or more segments of [A-Za-z0-9._-] (not "." or ".."),
	// each followed by "/", with no leading "/". Default DefaultPrefix.
	Prefix string

	// LockDelay is the lock-delay of every session: how long Consul
	// refuses to lock a key after a session holding it was invalidated
	// (by TTL or Destroy; not after an End or a Close). A larger delay
	// protects api.Lock holders sharing the keys, which have no local
	// deadline, and slows every crash failover by as much. Default
	// DefaultLockDelay (1 ms); between 1 ms and MaxLockDelay (60 s), in
	// whole milliseconds.
	LockDelay time.Duration

	// WaitTime is how long one blocking query of the WatchSets may block before Consul answers with the unchanged state
	// and the query is sent again (Consul adds up to 1/16 at random). The
	// client's http.Client must not time out sooner. Default
	// DefaultWaitTime (5 min); between 1 s and MaxWaitTime (10 min).
	WaitTime time.Duration

	// KeyQueries is how many blocking queries on single keys the
	// WatchSets of the Store (the watches its electors share) may run at once. A
	// request is served on its own keys while there is room: a WatchKey takes
	// one query, on the leader key, and a WatchEntry two, on the queue
	// entry and the leader key. Beyond that, requests share one query on
	// the whole prefix, which every change under the prefix wakes, and
	// which then lists the whole prefix again: that answers a change
	// later than a query on its key, but holds one connection for any
	// number of elections. Each query holds an HTTP connection while it
	// blocks, which Consul counts against its limit per client address
	// (limits.http_max_conns_per_client, 200). 2 serve one election
	// waiting in line, and bring the graceful hand-off level with
	// api.Lock's. Default 0: every request shares the prefix query, as in
	// the one fault soak run with key queries (2026-11-25, a840d4a) a
	// target of a planned handover held the passed key for 16 s without
	// leading, which is not yet explained. At most MaxKeyQueries.
	KeyQueries int

	// SessionNode, if set, binds every session to this catalog node
	// instead of the node of the agent the client talks to. Consul ends a
	// session when its node fails, within seconds and whatever its TTL, so
	// a holder whose agent fails may lose its key while it still believes
	// it leads, until its next renewal or watch tells it (1.5–1.9 s in the
	// fault soak of 2026-11-23, fd25fa7): fencing tokens cover that, the
	// stop-before-successor promise does not. A node no agent runs never fails: the
	// Store registers it in the catalog, without health checks and only if
	// it is absent, before its first session, and leaves it there. With
	// ACLs the token needs node:write on the name. A node name, like
	// "leasehold-jobs": [A-Za-z0-9-], at most 63 bytes. Default: the
	// agent's node.
	SessionNode string
}

// store is the driver on Consul.
type store struct {
	c          *api.Client
	kv         *api.KV
	prefix     string
	lockDelay  time.Duration
	waitTime   time.Duration
	keyQueries int         // Options.KeyQueries; 0: none
	node       string      // Options.SessionNode
	nodeReady  atomic.Bool // node is in the catalog
	hub        *hub        // the WatchSets' query
	queries    queries     // the blocking queries in flight
	layout     *backends.Layout
}

var _ backends.Driver = (*store)(nil)

// New returns a Store that uses c: pass it to lease.New. It fails if c is
// nil or an option is out of range, naming the option and its allowed
// range. It does no I/O; an unreachable agent shows up as errors from the
// calls. The Store does not own c, and its Close does nothing.
func New(c *api.Client, opts Options) (*backends.Store, error) {
	if c == nil {
		return nil, errors.New("consul: client is nil: pass a *api.Client made with api.NewClient")
	}
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	s := &store{c: c, kv: c.KV(), prefix: opts.Prefix, lockDelay: opts.LockDelay, waitTime: opts.WaitTime,
		keyQueries: opts.KeyQueries, node: opts.SessionNode}
	s.hub = &hub{s: s}
	s.layout = newLayout(s)
	return backends.NewStore(s), nil
}

func (o Options) withDefaults() Options {
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.LockDelay == 0 {
		o.LockDelay = DefaultLockDelay
	}
	if o.WaitTime == 0 {
		o.WaitTime = DefaultWaitTime
	}
	return o
}

func (o Options) validate() error {
	switch {
	case !strings.HasSuffix(o.Prefix, "/") || backends.ValidateElection(strings.TrimSuffix(o.Prefix, "/")) != nil:
		return fmt.Errorf("consul: Prefix %q must be segments of [A-Za-z0-9._-] each followed by \"/\", like %q", o.Prefix, DefaultPrefix)
	case o.LockDelay < time.Millisecond || o.LockDelay > MaxLockDelay || o.LockDelay%time.Millisecond != 0:
		return fmt.Errorf("consul: LockDelay %v must be whole milliseconds between 1ms and %v", o.LockDelay, MaxLockDelay)
	case o.WaitTime < time.Second || o.WaitTime > MaxWaitTime:
		return fmt.Errorf("consul: WaitTime %v must be between 1s and %v", o.WaitTime, MaxWaitTime)
	case o.KeyQueries < 0 || o.KeyQueries > MaxKeyQueries:
		return fmt.Errorf("consul: KeyQueries %d must be between 0 (none) and %d", o.KeyQueries, MaxKeyQueries)
	case o.SessionNode != "" && !validNodeName(o.SessionNode):
		return fmt.Errorf("consul: SessionNode %q must be 1 to 63 bytes of [A-Za-z0-9-]", o.SessionNode)
	}
	return nil
}

// Capabilities reports the name "consul", Consul's bounds, TTL between MinTTL and MaxTTL at any
// granularity and values up to MaxValueSize bytes, and that an End with a
// target passes the key (a KV transaction that unlocks it and locks it
// for the target, see pass.go), with committed waits: every answer of
// a WatchSet is a read of a server's state store, which holds
// only what the Raft log committed, as of the answer's X-Consul-Index. A
// view of a lagging server is older, and so has a lower index, not a
// different history.
func (s *store) Capabilities() backends.Capabilities {
	return backends.Capabilities{Name: "consul", Limits: backends.Limits{MinTTL: MinTTL, MaxTTL: MaxTTL,
		MaxValueSize: MaxValueSize, MaxCalls: MaxCalls}, Passes: true, CommittedWaits: true}
}

// key returns the KV key of an election (see keys.Leader).
func (s *store) key(election string) string { return keys.Leader(s.prefix, election) }

// Get reads the leader key with a consistent read. A key that exists but
// is not locked by a session is reported absent. The Store's first Get
// or List checks the layout marker.
func (s *store) Get(ctx context.Context, election string) (backends.Record, error) {
	if err := s.layout.Check(ctx); err != nil {
		return backends.Record{}, err
	}
	p, rev, err := s.read(ctx, election)
	if err != nil {
		return backends.Record{}, s.classify("get", election, ctx, err)
	}
	return record(election, p, rev), nil
}

// read reads the key consistently and returns it (nil if absent) with the
// index the read was made at.
func (s *store) read(ctx context.Context, election string) (*api.KVPair, uint64, error) {
	q := (&api.QueryOptions{RequireConsistent: true}).WithContext(ctx)
	p, meta, err := s.kv.Get(s.key(election), q)
	if err != nil {
		return nil, 0, err
	}
	return p, meta.LastIndex, nil
}

// validNodeName reports whether name is a node name that is also a valid
// DNS label, as Consul recommends.
func validNodeName(name string) bool {
	if len(name) == 0 || len(name) > 63 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
