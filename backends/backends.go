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
// its optional interfaces (Queuer, Roster, Proclaimer, GuardedWriter,
// Watcher, found by type assertion on the Driver) are reached only from
// inside this module, through its internal package driver: package lease,
// the suites, the adapters' tests and the benchmarks.
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
// It is taken from the store when the key is created (etcd: the key's create
// revision; ZooKeeper: the zxid that pointed its pointer node at the holder; Consul: the modify index at
// acquisition) and is strictly greater than the token of any earlier
// incarnation of the same key. Token 0 means "no key".
//
// A Record's Revision is the store's position at which the state was read.
// Wait takes the whole Record and returns when the key differs from it.
//
// # Layout
//
// An adapter keeps a layout marker under its prefix (LayoutSegment): the
// version of the layout its keys are in, written create-if-absent by the
// first NewSession of a Driver and read by the first Get or Roster.List of
// a Driver that has made no session. A marker of another version fails
// NewSession, Get and List with an error wrapping ErrLayout, so that two
// versions of leasehold never share a prefix; an absent one is accepted
// by a Driver that only reads. Layout holds that logic once: the adapter
// gives it a read and a create of the marker.
//
// # Errors
//
// Every method classifies its errors into the classes of errors.go. In
// particular, any method, on Driver, Session or an optional interface,
// returns an error wrapping ErrPermission when the store refuses the
// request for want of rights or credentials, with the store's own words
// in the message; such a request did nothing; and an error wrapping ErrTLS
// when a TLS handshake with the store failed on a certificate (see
// CertificateFailure); and NewSession, Get and Roster.List return an error
// wrapping ErrLayout when the prefix is laid out by another version (see
// Layout). These are the permanent classes: package lease
// never retries them. An error the store's client cures
// by itself on the next call (etcd's clientv3 fetching a new auth token)
// must not wrap it.
//
// # Helpers for adapters
//
// Record.Differs, Canceled and OwnSession hold what every adapter needs
// alike: the comparison Wait makes, the ErrCanceled class every classify
// checks first, and Queuer.Enqueue's check that a session is its own.
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
	// the value to pass to Wait.
	Revision uint64
	// To is, on an absent key, the session a handover marker names (see
	// Limits.Markers); empty otherwise. Differs ignores it.
	To string
}

// Exists reports whether the leader key was present.
func (r Record) Exists() bool { return r.Token != 0 }

// Limits are the bounds a store places on elections, and the ways it
// can end a term (End): data the store declares once, which package lease
// reads at construction instead of asking the store's type.
type Limits struct {
	// MinTTL and MaxTTL bound the session TTL the store grants.
	MinTTL, MaxTTL time.Duration
	// TTLGranularity is the unit the store counts a TTL in; a TTL must be a
	// multiple of it (etcd: 1s). Zero means any duration.
	TTLGranularity time.Duration
	// MaxValueSize is the largest value, in bytes, a leader key may hold.
	MaxValueSize int

	// Passes says an End with a target passes the key: one write rebinds
	// it to the target's session, with Target.Value, if the target still
	// holds its candidate record (Roster), and gives it a token greater
	// than that of any earlier incarnation; its Owner is the target. A
	// later End by the passing session at the old token finds nothing.
	// The target learns of it as any waiter on the key does, from Wait,
	// and takes it up with Create (idempotent per session) or from a Get.
	// A store that passes is a Roster.
	Passes bool
	// CommittedWaits, with Passes, says every answer of Wait, and of a
	// WatchSet's Wait and WaitGone, is a state the store committed at the
	// answer's Record.Revision, later than every state at a lower
	// Revision (etcd: a watch's events, and reads; Consul: a blocking
	// query's view, as of its X-Consul-Index). A target whose wait answers
	// with the key bound to its own session at a Revision above the last
	// state it read then leads with that answer; elsewhere, or on an older
	// answer, it confirms it with Get first.
	CommittedWaits bool
	// Markers says an End with a target deletes the key and, in the same
	// write, leaves a handover marker naming the target beside it (not in
	// its value), which outlasts it: until the key is created again, or
	// the target's session ends, every read of the absent key reports the
	// marker as Record.To (Get, Wait and a WatchSet's answer), and a
	// Create that makes the key clears it. For a target in line, the end
	// nudges the entry ahead of Target.Entry (Target.Ahead). It is for a
	// store that cannot pass (whose keys belong to the session that made
	// them). A store declares Passes or Markers, not both.
	Markers bool
}

// Driver is the contract an adapter implements: a connection to one
// linearizable store. It is for adapter writers; package lease reaches it
// through the Store that NewStore wraps it in, and users never call it.
// Implementations must be safe for concurrent use by multiple goroutines.
// A Driver does not own the client it was built from: closing the client
// is the caller's business. A Driver that owns something (connections of
// its own) implements io.Closer, which Store.Close calls.
type Driver interface {
	// Name names the store kind for errors and logs, e.g. "etcd".
	Name() string

	// Limits reports the store's bounds. It does no I/O.
	Limits() Limits

	// Get reads the current state of the election's leader key. An absent
	// key is not an error: it returns a Record with Token 0 and the current
	// Revision.
	Get(ctx context.Context, election string) (Record, error)

	// Wait blocks until the state of known.Election's leader key differs
	// from known (Record.Differs: another Token or Value), the state read at
	// known.Revision, and returns the new state. If the key changed after
	// known.Revision and before the call, Wait returns without blocking.
	// It returns the first differing state after known.Revision or a later
	// one: a change both made and superseded before Wait began to watch
	// may be skipped. Wait must see a change within a round trip of it,
	// not on a polling period. It returns an error wrapping ErrCompacted if
	// the store can no longer tell; the caller should Get again. It returns
	// an error wrapping ErrCanceled when ctx ends first.
	Wait(ctx context.Context, known Record) (Record, error)

	// NewSession creates a store session with the given TTL: an etcd lease,
	// a ZooKeeper session or a Consul session. The TTL has been checked
	// against Limits.
	NewSession(ctx context.Context, ttl time.Duration) (Session, error)
}

// Session is a store session that keys are bound to. When the store expires
// or revokes the session, it deletes every key bound to it. Implementations
// must be safe for concurrent use.
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
	// Revision may be passed to Wait. It returns an error wrapping
	// ErrSessionExpired if the session no longer exists.
	Create(ctx context.Context, election string, value []byte) (Record, error)

	// End ends the term of the leader key the session holds at
	// req.Token: it deletes the key, or hands it over, and leaves the
	// roster with it, in one write (see End for the request, what it
	// returns and its errors).
	End(ctx context.Context, req End) (Record, error)

	// KeepAlive makes one renewal of the session. A nil error means the
	// store had the session alive when it processed the request, so it
	// will not expire it sooner than TTL after the request was sent. It
	// returns an error wrapping ErrSessionExpired if the session is gone.
	KeepAlive(ctx context.Context) error

	// Close ends the session in the store, deleting every key bound to it.
	// Closing a session that already expired returns nil.
	Close(ctx context.Context) error
}
