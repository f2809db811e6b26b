// Package etcd is the leasehold adapter for etcd v3, built on a
// go.etcd.io/etcd/client/v3 client that the caller made and owns.
//
// An election's leader key is Prefix + election name. A session is an etcd
// lease; the leader key is put with the lease in a transaction guarded by
// CreateRevision == 0, so creating it is a compare-and-swap. A term key
// beside it, put in the same transaction, carries the fencing token: the
// revision of the write that made the holder leader, which for a created
// key is its create revision. Waiting is a watch opened at the revision
// read + 1, so a waiter is in etcd's synced watcher group and sees a delete
// about one round trip after it commits. A WatchSet (the driver's Watch) serves
// the requests of many elections with one gRPC watch stream and one
// goroutine; on it each request watches only the keys it is about (its
// leader and term keys, or the entry ahead and its own entry), so a write
// costs only the sets that wait for it: a hand-off in a queue of N
// waiters sends a few events, not a few per waiter. The roster requests
// of a set, one per election its process leads, share one watch of every
// roster. A
// planned handover passes the key to its target in one
// transaction (an End with a target: the key goes onto the target's
// lease, and the term key's new revision is the new token).
//
// # Keys and tokens
//
// Under Prefix: the leader key <name>; the term key ~term/<name>, on the
// holder's lease; queue entries ~queue/<name>/~<lease> and candidate
// records ~roster/<name>/~<lease>, on their session's lease, whose
// position is their create revision. A Create retried after a timeout
// finds the key on its own lease and takes it as its own.
//
// A put onto another lease keeps a key's create revision, and one
// transaction may not delete and re-create a key, so the create revision
// cannot be the token of a key passed from one holder to the next. The
// term key, put on the holder's lease in the transaction that makes it
// leader (a create or a pass), carries the token instead: its mod
// revision. For a created key that equals the create revision, so tokens
// read by earlier versions and by this one agree on every term but a
// passed one, and keep rising across an upgrade; a term an earlier layout
// created has no term key, and its token is the create revision. An End,
// a GuardedPut and a Proclaim are conditioned on the term key's mod
// revision and on the leader key's create revision at or below it, so
// they never touch a successor's key.
//
// A pass (End with a target) checks that the term key was written at the
// leader's token, that the leader key is on its lease, that the target's
// candidate record exists and, for a target in line, that its queue
// entry's create revision is the entry named; puts the leader key onto
// the target's lease (etcd refuses a put onto a lease that no longer
// exists, which fails the whole transaction); and puts the term key,
// naming the target and its queue entry ("<session> <entry>"); and
// rewrites the target's queue entry, if it has one, keeping its value,
// lease and create revision: the target's WatchSet, which watches its
// own entry beside the one ahead (backends.WatchRequest.Mine), reads the
// key when it sees that write, and wakes, once per pass.
// With Leave it deletes the leader's candidate record in the same
// transaction. A watch's events are states etcd committed, so a target
// that sees the key passed to its own lease leads on them
// (backends.Capabilities.CommittedWaits).
//
// # Auth
//
// With etcd's authentication on, an elector's user needs readwrite on the
// key range of Prefix (leader keys, term keys, queue entries, candidate
// records and guarded data all live under it); read on it suffices for Leader and
// Observe. Granting a lease needs a logged-in user but no key rights. A
// request etcd refuses
// (permission denied, authentication failed, a client without
// credentials) fails with an error wrapping backends.ErrPermission and
// etcd's words; an expired or invalid token is not such a refusal when the
// client logs in with a user name and password, but it is with a fixed
// clientv3.Config.Token. clientv3 gets a new token and retries a unary
// call by itself; a watch is checked against the token its gRPC stream
// opened with, so a WatchSet's watches have a stream of their own, and a
// WatchSet whose new watch etcd refuses for its stream's token opens its
// stream again, with a new token, and makes its watches again from where
// they were (a second refusal in a row ends its requests with it). Campaigns and leaderships that outlast etcd's
// --auth-token-ttl are thus never refused for it; an Observe may meet one
// such refusal, which it retries. etcd refuses a keep-alive of a lease whose keys
// its user may no longer write, so revoking a leader's write rights ends
// its leadership at its next renewal.
//
// Prefix + "~layout" holds the layout's version (backends.Layout), 1,
// put in a transaction guarded by CreateRevision == 0.
//
// Application code should use package lease; this package only connects it
// to etcd.
package etcd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/keys"
)

// DefaultPrefix is the key prefix used when Options.Prefix is empty.
const DefaultPrefix = "/leasehold/"

// Store limits. etcd counts lease TTLs in whole seconds; a server built with
// the default election timeout (1 s) grants no lease shorter than 2 s.
const (
	MinTTL       = 2 * time.Second
	MaxTTL       = 9_000_000_000 * time.Second // etcd's MaxLeaseTTL
	MaxValueSize = 1 << 20                     // well below etcd's 1.5 MiB request limit
)

// Options configure New.
type Options struct {
	// Prefix is prepended to every election name to form its key. It must
	// end in "/". Default DefaultPrefix.
	Prefix string
}

// store is the driver on etcd.
type store struct {
	c       *clientv3.Client
	prefix  string
	layout  *backends.Layout
	streams streams
}

var _ backends.Driver = (*store)(nil)

// New returns a Store that uses c: pass it to lease.New. It fails if c is
// nil or the prefix does not end in "/". It does no I/O; an unreachable
// server shows up as errors from the calls. The Store does not own c, and
// its Close does nothing: closing c is the caller's business.
func New(c *clientv3.Client, opts Options) (*backends.Store, error) {
	if c == nil {
		return nil, errors.New("etcd: client is nil: pass a *clientv3.Client made with clientv3.New")
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	if !strings.HasSuffix(opts.Prefix, "/") {
		return nil, fmt.Errorf("etcd: prefix %q must end in \"/\"", opts.Prefix)
	}
	s := &store{c: c, prefix: opts.Prefix}
	s.layout = newLayout(s)
	return backends.NewStore(s), nil
}

// Capabilities reports the name "etcd", etcd's bounds, TTL between
// MinTTL and MaxTTL in whole seconds and values up to MaxValueSize bytes,
// and that an End with a target passes the key (a put on the target's
// lease, see end.go), with committed waits: WatchSet answers are
// watch events or linearizable reads, states etcd committed at their
// revisions.
func (s *store) Capabilities() backends.Capabilities {
	return backends.Capabilities{Name: "etcd", Limits: backends.Limits{MinTTL: MinTTL, MaxTTL: MaxTTL,
		TTLGranularity: time.Second, MaxValueSize: MaxValueSize}, Passes: true, CommittedWaits: true}
}

// key returns the etcd key of an election (see keys.Leader).
func (s *store) key(election string) string { return keys.Leader(s.prefix, election) }

// Get reads the leader key and its term key in one linearizable
// read-only transaction, after the Store's first check of the layout
// marker.
func (s *store) Get(ctx context.Context, election string) (backends.Record, error) {
	if err := s.layout.Check(ctx); err != nil {
		return backends.Record{}, err
	}
	resp, err := s.c.Txn(ctx).Then(clientv3.OpGet(s.key(election)), clientv3.OpGet(s.termKey(election))).Commit()
	if err != nil {
		return backends.Record{}, s.classify("get", election, ctx, err)
	}
	rec := backends.Record{Election: election, Revision: uint64(resp.Header.Revision)}
	if kv := only(resp.Responses[0]); kv != nil {
		fill(&rec, kv, only(resp.Responses[1]))
	}
	return rec, nil
}
