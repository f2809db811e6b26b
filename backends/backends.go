// Package backends defines the contract between package lease and a store
// adapter (etcd, ZooKeeper, Consul, ...). Application code should use package
// lease; this package is for writing and testing adapters.
//
// An adapter is thin: every method makes one attempt against the store and
// classifies its error. Timers, retries, backoff and the decision "am I still
// leader" belong to package lease, so that behaviour is the same on every
// store. Package backendtest holds the conformance suite every adapter must
// pass.
//
// # Store and Driver
//
// As in Go CDK, where a *blob.Bucket holds a driver.Bucket, users hold a
// portable *Store and the adapter writes a Driver. An adapter's New
// returns NewStore(driver); the user passes that Store to lease.New and
// may call only its Name, Limits and Close. The Driver, its Sessions and
// their WatchSets are reached only from inside this module, through its
// internal package driver: package lease, the suites, the adapters' tests
// and the benchmarks.
//
// The contract is three interfaces, with no optional ones: Driver (the
// store-wide reads, the queue's deletes, the guarded write and
// the watch set), Session (what a session writes: its leader keys, queue
// entries and candidate records) and WatchSet (many waits over one
// stream: every wait for a change, of a leader key, a queue entry or a
// roster, is a request in a WatchSet). Every adapter implements all of them, so every policy of
// package lease runs on every store; what differs between stores is
// declared once, as data, in Capabilities.
//
// # Keys and elections
//
// Methods take an election name that package lease has already validated
// with ValidateElection. The adapter maps it to a key (an etcd key, a ZooKeeper
// path, a Consul KV key) under its own prefix.
//
// # Tokens and revisions
//
// A Record's Token is the fencing token of one incarnation of the leader key.
// It is taken from the store when the key is created or passed (etcd: the
// mod revision of the election's term key, written with the create or
// pass; ZooKeeper: the zxid that pointed its pointer node at the holder;
// Consul: the modify index at acquisition) and is strictly greater than
// the token of any earlier incarnation of the same key. Token 0 means "no
// key".
//
// A Record's Revision is the store's position at which the state was read.
// A WatchKey request (WatchSet) takes the whole Record and is answered
// when the key differs from it.
//
// # Layout
//
// An adapter keeps a layout marker under its prefix (LayoutSegment): the
// version of the layout its keys are in, written create-if-absent by the
// first NewSession of a Driver and read by the first Get or List of
// a Driver that has made no session. A marker of another version fails
// NewSession, Get and List with an error wrapping ErrLayout, so that two
// versions of leasehold never share a prefix; an absent one is accepted
// by a Driver that only reads. Layout holds that logic once: the adapter
// gives it a read and a create of the marker.
//
// # Errors
//
// Every method classifies its errors into the classes of errors.go. In
// particular, any method on Driver or Session (and a WatchSet's answer,
// in Change.Err) returns an error wrapping ErrPermission when the store
// refuses the request for want of rights or credentials, with the store's
// own words in the message; such a request did nothing; and an error
// wrapping ErrTLS when a TLS handshake with the store failed on a
// certificate (see CertificateFailure); and NewSession, Get and List
// return an error wrapping ErrLayout when the prefix is laid out by
// another version (see Layout). These are the permanent classes: package
// lease never retries them. An error the store's client cures by itself
// on the next call (etcd's clientv3 fetching a new auth token) must not
// wrap it.
//
// # Helpers for adapters
//
// Record.Differs and Canceled hold what every adapter needs alike: the
// comparison a WatchKey request makes and the ErrCanceled class every classify checks
// first.
//
// # Writing an adapter
//
// An adapter is a package whose New takes the store's own client (or
// dials it, as ZooKeeper's does), checks its options at once, naming the
// option and its allowed range, and returns NewStore(d). d implements
// Driver; its NewSession returns a Session and its Watch a WatchSet.
//   - Keys: each election maps to a leader key under a prefix the user
//     chooses, with the queue entries, candidate records, guarded data
//     and layout marker in the segments QueueSegment, RosterSegment,
//     DataSegment and LayoutSegment beside it. Keep the layout's version
//     with Layout, and raise it when the keys' meaning changes.
//   - Calls: each method makes one attempt, honours its context and
//     classifies its error (errors.go). No timers, retries or loops of
//     its own: package lease owns them, identically for every store.
//   - Capabilities: the TTL range and granularity the store grants, the
//     largest value, and whether an End with a target passes the key in
//     one write (Passes), with CommittedWaits if a wait's answer is a
//     committed state. A store that cannot pass hands nothing over: its
//     handovers release the key plainly.
//   - WatchSet: many waits over one stream, each answered once. The
//     adapters of this module feed their store's read-with-watch and
//     change stream to one shared engine (internal/watchset); an adapter
//     outside it writes its set to the same contract.
//
// Package backendtest's RunConformanceTests is the test of all of it,
// against a real server of the store. It takes a Harness: NewStore
// returns a Store whose connection a function severs, Connect the same
// Store with the Link (a TCP proxy per server) it dials through, so that
// a suite can slow or cut it alone, and ExpireSession ends a session as
// its TTL would. Package backendtest's own test TestMinimalHarness is
// such a harness for etcd, in 38 lines; lease/leasetest's RunElectorTests
// takes the same Harness and runs every policy of package lease on the
// store. A case that a store cannot run says why in one line of the
// suite's log.
//
// # Stability
//
// This contract, the suites built on it and the store layout may change
// in any minor version before v1: an adapter outside this module should
// move to a new minor version only once it passes the suites there.
// Package lease's doc, section Stability, says what may change and what
// will not.
package backends

import (
	"context"
	"time"
)

// Record is the state of one election's leader key as read from the store.
type Record struct {
	// Election is the election name the record belongs to.
	Election string
	// Value is the holder's value (its identity). Nil when the key is absent.
	Value []byte
	// Token is the fencing token of this incarnation of the key; 0 if and
	// only if the key is absent.
	Token uint64
	// Owner is the ID of the session that holds the key; empty when absent.
	Owner string
	// Revision is the store position at which this state was observed. It is
	// the value a WatchKey request takes in Known.
	Revision uint64
}

// Exists reports whether the leader key was present.
func (r Record) Exists() bool { return r.Token != 0 }

// Limits are the bounds a store places on elections: what a user
// chooses a TTL and a value within (see Store.Limits).
type Limits struct {
	// MinTTL and MaxTTL bound the session TTL the store grants.
	MinTTL, MaxTTL time.Duration
	// TTLGranularity is the unit the store counts a TTL in; a TTL must be a
	// multiple of it (etcd: 1s). Zero means any duration.
	TTLGranularity time.Duration
	// MaxValueSize is the largest value, in bytes, a leader key may hold.
	MaxValueSize int
	// MaxCalls, if not 0, bounds the election calls (creates, deletes,
	// reads, queue and roster writes) one elector has in flight at once,
	// below package lease's own bound (32): for a store that serves each
	// call in flight on a connection of its own and limits a client's
	// connections (Consul's agents: 200 per client address).
	MaxCalls int
}

// Capabilities are what a store declares once, as data: its name, its
// bounds and the ways it can end a term (End). Package lease reads them
// at construction instead of asking the store's type; every store offers
// every other part of the contract.
type Capabilities struct {
	// Name names the store kind for errors and logs, e.g. "etcd".
	Name string
	// Limits are the store's bounds.
	Limits

	// Passes says an End with a target passes the key: one write rebinds
	// it to the target's session, with Target.Value, if the target still
	// holds its candidate record (Session.Join), and gives it a token greater
	// than that of any earlier incarnation; its Owner is the target. A
	// later End by the passing session at the old token finds nothing.
	// The target learns of it as any waiter on the key does, from a
	// WatchKey answer, and takes it up with Create (idempotent per session) or from a Get.
	// A handover is a pass: every adapter of this module passes. One that
	// does not (Passes false) refuses an End with a target with
	// errors.ErrUnsupported, and package lease's handovers there release
	// the key plainly, handing nothing over.
	Passes bool
	// CommittedWaits, with Passes, says every answer of a WatchSet's
	// WatchKey and WatchEntry requests is a state the store
	// committed at the answer's Record.Revision, later than every state
	// at a lower Revision (etcd: a watch's events, and reads; Consul: a
	// blocking query's view, as of its X-Consul-Index). A target whose wait answers
	// with the key bound to its own session at a Revision above the last
	// state it read then leads with that answer; elsewhere, or on an older
	// answer, it confirms it with Get first.
	CommittedWaits bool
}

// Driver is the contract an adapter implements: a connection to one
// linearizable store. It is for adapter writers; package lease reaches it
// through the Store that NewStore wraps it in, and users never call it.
// Implementations must be safe for concurrent use by multiple goroutines.
// A Driver does not own the client it was built from: closing the client
// is the caller's business. A Driver that owns something (connections of
// its own) implements io.Closer, which Store.Close calls.
//
// Its methods are the store-wide ones: reads of any election's leader
// key, queue and roster (a wait for any of them to change is a request in
// a WatchSet), the deletes of queue entries by their Record, the
// guarded write and the watch set. What a session writes
// (its leader keys, queue entries, candidate records) is on Session.
// Every adapter implements all of it, so that package lease offers every
// policy on every store; like every adapter call, each method makes one
// attempt and classifies its error.
type Driver interface {
	// Capabilities reports the store's name, bounds and ways to end a
	// term. It does no I/O, and returns the same value every time.
	Capabilities() Capabilities

	// Get reads the current state of the election's leader key. An absent
	// key is not an error: it returns a Record with Token 0 and the current
	// Revision.
	Get(ctx context.Context, election string) (Record, error)

	// NewSession creates a store session with the given TTL: an etcd lease,
	// a ZooKeeper session or a Consul session. The TTL has been checked
	// against Capabilities.Limits.
	NewSession(ctx context.Context, ttl time.Duration) (Session, error)

	// Ahead returns the entry of election's queue (see QueueSegment) with the
	// greatest Token below token: the one a waiter at token watches. If
	// there is none, the waiter is at the head, and Ahead returns a
	// Record with Token 0.
	Ahead(ctx context.Context, election string, token uint64) (Record, error)

	// Dequeue deletes entry, if it is still there. A missing entry is not
	// an error.
	Dequeue(ctx context.Context, entry Record) error

	// List returns election's roster (see RosterSegment) in Token order (each
	// Record with Election, Owner, Value and Token set) and the store
	// position at which it was read. An empty roster is not an error.
	List(ctx context.Context, election string) ([]Record, uint64, error)

	// GuardedPut sets w.Key to w.Value if and only if, when the write
	// commits, w.Election's leader key is the incarnation whose token is
	// w.Token (see Guarded). Otherwise nothing is written and the error
	// wraps ErrNotLeader; a token of 0 is always refused so. An error
	// that wraps none of ErrNotLeader, ErrUnavailable and ErrPermission
	// leaves the outcome unknown. It is on Driver, not Session, as the
	// token alone guards it: the write needs no session of its own.
	GuardedPut(ctx context.Context, w Guarded) error

	// Watch starts a WatchSet whose answers go to deliver. deliver is
	// called from the set's own goroutine, one Change at a time, with no
	// lock of the set held: it may block (the set then waits), and it may
	// call the set's Wait and Stop, but not Close, which waits
	// for a deliver in progress. Watch does no I/O; the set's stream
	// starts with its first request.
	Watch(deliver func(Change)) WatchSet
}

// Session is a store session that keys are bound to. When the store expires
// or revokes the session, it deletes every key bound to it: its leader
// keys, its queue entries and its candidate records. Implementations must
// be safe for concurrent use.
type Session interface {
	// ID identifies the session in the store; Record.Owner holds it.
	ID() string

	// TTL is the TTL the store granted, which may exceed the one requested.
	TTL() time.Duration

	// Create creates the election's leader key bound to this session if and
	// only if it does not exist (a compare-and-swap create). It is
	// idempotent: if the key exists and is bound to this session, as after
	// a retry of a create whose reply was lost, Create returns that record
	// with a nil error. If another session holds the key, it returns an
	// error wrapping ErrKeyExists together with the holder's Record, whose
	// Revision a WatchKey request may take. It returns an error wrapping
	// ErrSessionExpired if the session no longer exists.
	Create(ctx context.Context, election string, value []byte) (Record, error)

	// End ends the term of the leader key the session holds at
	// req.Token: it deletes the key, or hands it over, and leaves the
	// roster with it, in one write (see End for the request, what it
	// returns and its errors).
	End(ctx context.Context, req End) (Record, error)

	// Proclaim replaces the value of election's leader key if the key
	// exists, is bound to this session and holds token, and returns the
	// new Record: a leader's update of the value in its own key, without
	// a new term. The key stays bound to the session and keeps its Token:
	// no fencing token changes. It returns an error wrapping ErrNotFound
	// if the key is absent or holds another token or session, and one
	// wrapping ErrSessionExpired if the session no longer exists. value
	// has been checked against Limits.MaxValueSize.
	Proclaim(ctx context.Context, election string, token uint64, value []byte) (Record, error)

	// Enqueue adds the session's entry to election's queue (see QueueSegment),
	// bound to the session (it goes when the session ends), and returns
	// it: Election is the election, Owner the session's ID, Token the
	// entry's position, which is greater than that of every entry
	// enqueued before it, and Revision the store position of the read. It
	// is idempotent per session and election: if the session's entry
	// exists, as after a retry whose reply was lost, it returns that
	// entry. It returns an error wrapping ErrSessionExpired if the session
	// no longer exists.
	Enqueue(ctx context.Context, election string) (Record, error)

	// Join writes the session's record in election's roster (see RosterSegment)
	// with value, bound to the session (it goes when the session ends),
	// and returns it: Election is the election, Owner the session's ID,
	// Value the value, Token the record's join position, greater than that
	// of every record joined before it, and Revision the store position of
	// the write. If the session already has a record there, Join replaces
	// its value and keeps its Token. It returns an error wrapping
	// ErrSessionExpired if the session no longer exists. value has been
	// checked against Limits.MaxValueSize.
	Join(ctx context.Context, election string, value []byte) (Record, error)

	// Leave deletes the session's record in election's roster. A missing
	// record is not an error.
	Leave(ctx context.Context, election string) error

	// KeepAlive makes one renewal of the session. A nil error means the
	// store had the session alive when it processed the request, so it
	// will not expire it sooner than TTL after the request was sent. It
	// returns an error wrapping ErrSessionExpired if the session is gone.
	KeepAlive(ctx context.Context) error

	// Close ends the session in the store, deleting every key bound to it.
	// Closing a session that already expired returns nil.
	Close(ctx context.Context) error
}
