package backends

import "context"

// MarkedDeleter is an optional interface of a Store, found by type
// assertion: the release of a held leader key with a handover marker, in
// one write. It backs package lease's planned handover where the store
// can neither pass the key (Passer) nor let a waiter that reads the key
// after the release miss the marker: the marker lives beside the key, not
// in its value, and outlasts it. etcd can (a transaction that deletes the
// key and puts a marker key), and so can ZooKeeper (a multi that deletes
// the leader node and writes the marker into a node beside it).
//
// Until the key is created again, or to's session ends, every read of the
// absent key reports the marker as Record.To: Get, Wait and a WatchSet's
// answer. A Create that makes the key clears it.
//
// A target that waits in line (Queuer) watches the entry ahead of its
// own, not the key. If the store is also a Watcher, a WatchSet's WaitGone
// on an entry is answered, once, by a marked delete whose target's entry
// (Mark.Entry) waits behind that one, with the absent Record and its To, so a
// target waiting in a WatchSet learns of it and those between it and the
// head hold off; a WaitGone on the target's own entry, or on one behind
// it, is not answered. Such a target needs no nudge.
type MarkedDeleter interface {
	// DeleteMarked deletes election's leader key if it exists, is bound
	// to s and holds token, and in the same write leaves the marker
	// naming session to.To, whose queue entry has token to.Entry (0: it
	// waits on the key). With leave, the same write deletes s's record in
	// election's roster too, as LeavingDeleter.DeleteLeaving does; only a
	// store that is a LeavingDeleter is asked to. It returns an error
	// wrapping ErrNotFound, and changes nothing, if the key is absent or
	// holds another token or session, and one wrapping ErrNoCandidate,
	// changing nothing, if to's session no longer exists.
	DeleteMarked(ctx context.Context, s Session, election string, token uint64, to Mark, leave bool) error
}

// A Mark names the target of a marked delete (MarkedDeleter).
type Mark struct {
	// To is the target's session ID.
	To string
	// Entry is the token of the target's queue entry (Queuer), 0 if it
	// waits on the key.
	Entry uint64
	// Ahead is the entry just ahead of Entry in the queue as the caller
	// last saw it (its Owner and Token), or the zero Record if the
	// caller does not know it. It is a hint: a store that wakes the
	// target by nudging the entry ahead of its own may nudge Ahead
	// rather than list the queue, and lists it if Ahead is gone. A wrong
	// hint (an entry between Ahead and Entry that the caller did not
	// see) leaves the target unwoken: it is a liveness matter, bounded
	// by the hold-off of the waiters that read the marker.
	Ahead Record
}

// HandoverSegment is the path segment under an adapter's prefix below
// which a MarkedDeleter keeps its markers: "~handover". No election name
// contains '~', so a marker never collides with a leader key, and it
// differs from the other segments.
const HandoverSegment = "~handover"
