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
// (entry) waits behind that one, with the absent Record and its To, so a
// target waiting in a WatchSet learns of it and those between it and the
// head hold off; a WaitGone on the target's own entry, or on one behind
// it, is not answered. Such a target needs no nudge.
type MarkedDeleter interface {
	// DeleteMarked deletes election's leader key if it exists, is bound
	// to s and holds token, and in the same write leaves the marker
	// naming session to, whose queue entry has token entry (0: to waits
	// on the key). With leave, the same write deletes s's record in
	// election's roster too, as LeavingDeleter.DeleteLeaving does; only a
	// store that is a LeavingDeleter is asked to. It returns an error
	// wrapping ErrNotFound, and changes nothing, if the key is absent or
	// holds another token or session, and one wrapping ErrNoCandidate,
	// changing nothing, if to's session no longer exists.
	DeleteMarked(ctx context.Context, s Session, election string, token uint64, to string, entry uint64, leave bool) error
}

// HandoverSegment is the path segment under an adapter's prefix below
// which a MarkedDeleter keeps its markers: "~handover". No election name
// contains '~', so a marker never collides with a leader key, and it
// differs from the other segments.
const HandoverSegment = "~handover"
