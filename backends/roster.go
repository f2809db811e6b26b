package backends

import "context"

// Roster is an optional interface of a Driver, found by type assertion: the
// candidates of each election, one record per session, bound to it. It
// backs package lease's candidate list (LeaseElector.Candidates), its
// election policies (priority, handover) and the requests of
// `leasehold handover`. The store only keeps the records; what a value
// means, and the succession order, are package lease's.
//
// Records live under the adapter's prefix in a namespace of their own
// (RosterSegment), apart from the leader keys, the queue entries and the
// guarded data. Implementations must be safe for concurrent use; like
// every adapter call, each method makes one attempt and classifies its
// error.
type Roster interface {
	// Join writes s's record in election's roster with value, bound to s
	// (it goes when the session ends), and returns it: Election is the
	// election, Owner the session's ID, Value the value, Token the record's
	// join position, greater than that of every record joined before it,
	// and Revision the store position of the write. If s already has a
	// record there, Join replaces its value and keeps its Token. It
	// returns an error wrapping ErrSessionExpired if the session no longer
	// exists. value has been checked against Limits.MaxValueSize; s is a
	// session of this store.
	Join(ctx context.Context, s Session, election string, value []byte) (Record, error)
	// Leave deletes s's record in election's roster. A missing record is
	// not an error.
	Leave(ctx context.Context, s Session, election string) error
	// List returns election's roster in Token order (each Record with
	// Election, Owner, Value and Token set) and the store position at which
	// it was read. An empty roster is not an error.
	List(ctx context.Context, election string) ([]Record, uint64, error)
	// WaitList blocks until election's roster differs from the one read at
	// revision (a record joined, left, or changed its value) and returns
	// the new roster and its revision, as List does. If the roster changed
	// after revision and before the call, it returns without blocking. It
	// must see a change within a round trip of it, not on a polling
	// period; it may return early with an unchanged roster. It returns an
	// error wrapping ErrCompacted if the store can no longer tell (the
	// caller should List again), and one wrapping ErrCanceled when ctx
	// ends first.
	WaitList(ctx context.Context, election string, revision uint64) ([]Record, uint64, error)
}

// RosterSegment is the path segment under an adapter's prefix below which
// Roster keeps its records: "~roster". No election name contains '~', so
// a record never collides with a leader key, and it differs from
// QueueSegment and from the guarded data's segment.
const RosterSegment = "~roster"

// Proclaimer is an optional interface of a Driver, found by type
// assertion: a leader's update of the value in its own key, without a new
// term. It backs Leadership.Proclaim and the marker a handing-over leader
// writes, which the waiters' Wait sees as a change.
type Proclaimer interface {
	// Proclaim replaces the value of election's leader key if the key
	// exists, is bound to s and holds token, and returns the new Record.
	// The key stays bound to s and keeps its Token: no fencing token
	// changes. It returns an error wrapping ErrNotFound if the key is
	// absent or holds another token or session, and one wrapping
	// ErrSessionExpired if the session no longer exists. value has been
	// checked against Limits.MaxValueSize.
	Proclaim(ctx context.Context, s Session, election string, token uint64, value []byte) (Record, error)
}
