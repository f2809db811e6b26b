package backends

import "context"

// Queuer is an optional interface of a Driver, found by type assertion: an
// ordered queue of waiting candidates per election, bound to sessions. It
// backs package lease's ordered-queue mode (lease.WaitQueue, its default), in which
// a waiting candidate watches only the entry just ahead of it, as the
// waiters of etcd's concurrency.Election and Curator's LeaderLatch do, so
// that a release wakes one waiter instead of all of them.
//
// The queue only orders the waiting. Leadership is still the leader key
// and its compare-and-swap create: the head of the queue watches the
// leader key and creates it when it is free. So candidates in queue mode
// and candidates without it may share an election safely; the latter
// simply do not wait in line.
//
// Entries live under the adapter's prefix in a namespace of their own
// (QueueSegment), apart from the leader keys and the guarded data.
// Implementations must be safe for concurrent use; like every adapter call,
// each method makes one attempt and classifies its error.
type Queuer interface {
	// Enqueue adds the session's entry to election's queue, bound to s (it
	// goes when the session ends), and returns it: Election is the
	// election, Owner the session's ID, Token the entry's position, which
	// is greater than that of every entry enqueued before it, and Revision
	// the store position of the read. It is idempotent per session and
	// election: if the session's entry exists, as after a retry whose
	// reply was lost, it returns that entry. It returns an error wrapping
	// ErrSessionExpired if the session no longer exists. s is a session of
	// this store.
	Enqueue(ctx context.Context, s Session, election string) (Record, error)

	// Ahead returns the entry of election's queue with the greatest Token
	// below token: the one a waiter at token watches. If there is none,
	// the waiter is at the head, and Ahead returns a Record with Token 0.
	Ahead(ctx context.Context, election string, token uint64) (Record, error)

	// WaitGone blocks until entry (from Enqueue or Ahead) no longer exists
	// or is nudged (Nudge), and returns nil then, or at once if it is
	// already gone. It may also return nil early, for example when the
	// store can no longer tell; callers look again with Ahead. It must see
	// the deletion or the nudge within a round trip of it. It returns an
	// error wrapping ErrCanceled when ctx ends first.
	WaitGone(ctx context.Context, entry Record) error
	// Nudge wakes the waiter behind entry: it rewrites entry in place, so
	// that a WaitGone on it returns, and leaves it bound to its session,
	// with its Token and its place in the queue. A missing entry is not
	// an error. Package lease uses it to wake a candidate named by a
	// handover that is waiting in line (see Roster), which then reads the
	// leader key.
	Nudge(ctx context.Context, entry Record) error

	// Dequeue deletes entry, if it is still there. A missing entry is not
	// an error.
	Dequeue(ctx context.Context, entry Record) error
}

// QueueSegment is the path segment under an adapter's prefix below which
// Queuer keeps its entries: "~queue". No election name contains '~', so an
// entry never collides with a leader key.
const QueueSegment = "~queue"
