package backends

import "context"

// Passer is an optional interface of a Store, found by type assertion: a
// hand-off of a held leader key to a named candidate in one write. It
// backs package lease's planned handover where the store can rebind a key
// to another session and still raise its token. Consul can (a KV
// transaction that unlocks the key and locks it again for the target,
// moving its ModifyIndex on), and so can etcd (a transaction that puts
// the key on the target's lease and puts a term key beside it, whose
// revision is the new token). ZooKeeper cannot, as its ephemeral nodes
// belong to the session that made them: its handovers keep to the marker
// and Delete (MarkedDeleter).
//
// The target learns of the hand-off as any waiter on the key does, from
// Wait, and takes up the key with Create, which returns the record its
// session now holds (Create is idempotent per session), or from a Get. A
// target that waits in line (Queuer) watches the entry ahead of its own,
// not the key. If the store is also a Watcher, a WatchSet's WaitGone on an
// entry is answered, once, with the key's state, when the key is passed
// to a session whose entry waits behind that one, so a target waiting in
// a WatchSet learns of it too; a WaitGone on the target's own entry is
// not. A pass given no entry (0) is answered so too, if the target has
// an entry behind, or early, to every WaitGone in the election, if the
// store cannot tell: a target whose record showed no entry when the
// leader passed may have joined the line since. Otherwise a Pass
// must go only to a session whose candidate waits on the key; package
// lease makes sure of it.
type Passer interface {
	// Pass rebinds election's leader key, if it exists, is bound to s and
	// holds token, to the session to, with value, if and only if to still
	// holds its candidate record in election's Roster (Roster.Join), all
	// in one atomic write, and returns the new Record. entry is the token
	// of to's queue entry (Queuer), 0 if to waits on the key: a store may
	// keep it with the pass, for its WatchSets to tell which entries are
	// ahead of to's (see above). With leave, the
	// same write deletes s's record in election's roster too, as
	// LeavingDeleter.DeleteLeaving does; only a store that is a
	// LeavingDeleter is asked to. Its Token is
	// greater than token, as that of any new incarnation of the key; its
	// Owner is to. A Delete by s at token then finds nothing.
	//
	// Pass returns an error wrapping ErrNotFound, and changes nothing, if
	// the key is absent or holds another token or session (and one
	// wrapping ErrSessionExpired too if s no longer exists), and one
	// wrapping ErrNoCandidate if to holds no candidate record in election
	// (its session or its candidacy ended). value has been checked
	// against Limits.MaxValueSize.
	Pass(ctx context.Context, s Session, election string, token uint64, to string, entry uint64, value []byte, leave bool) (Record, error)
}

// CommittedWaits is an optional interface of a Passer, found by type
// assertion. CommittedWaits reports true if every answer of the store's
// Wait, and of its WatchSets' Wait and WaitGone, is a state the store
// committed at the answer's Record.Revision, later than every state at a
// lower Revision (etcd: a watch's events, and reads; Consul: a blocking
// query's view, as of its X-Consul-Index). A target whose wait answers
// with the key bound to its own session at a Revision above the last
// state it read then leads with that answer; elsewhere, or on an older
// answer, it confirms it with Get first.
type CommittedWaits interface {
	CommittedWaits() bool
}
