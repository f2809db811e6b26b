package backends

// End is a request to end a term on a held leader key, Session.End: release
// it, leave the roster with it, or hand it to a named target. One request
// is one write, guarded by "the key exists, is bound to the session and
// holds Token", so an end can never touch a successor's key.
//
// What an end with a target does is declared by the store's Capabilities:
// where Capabilities.Passes (etcd, Consul, ZooKeeper), it passes the key,
// rebinding it to the target's session with a greater token; where
// Capabilities.Markers (a store whose keys belong to the session that
// made them), it deletes the key and leaves a handover marker naming the
// target beside it.
//
// Session.End returns, for a pass, the key as passed, and otherwise the
// zero Record. Its errors, each of a request that changed nothing:
//   - ErrNotFound if the key is absent or holds another token or session
//     (with ErrSessionExpired too if the store knows the session is gone);
//     the caller then leaves the roster, if it meant to, with Session.Leave;
//   - ErrNoCandidate if To names a target that does not stand in the
//     election: its node there (see Target) is missing or its session has
//     ended;
//   - errors.ErrUnsupported for a target on a store with neither
//     capability; package lease sends none;
//   - ErrPermission if the credentials may not write what the end writes
//     (a marker: package lease then releases the key plainly).
type End struct {
	// Election names the election whose key ends.
	Election string
	// Token is the token of the term that ends.
	Token uint64
	// Leave deletes the session's candidate record in election's roster
	// (Session.Join) in the same write, as Session.Leave does; a missing
	// record is no error.
	// Package lease resigns so, as deleting the record just after the key
	// would race the successor's create.
	Leave bool
	// To names the target of a handover; nil ends the term plainly.
	To *Target
}

// Target is the session an End hands the key to, and the node by which it
// stands in the election: its queue entry (Session.Enqueue) if Entry is not 0,
// else its candidate record (Roster). The end checks, in its write, that
// the node exists; a pass checks the candidate record too, so that once a
// campaign's record is gone no key can be passed to it.
//
// Value is given to, and only to, a store that passes keys, and Ahead to,
// and only to, one that marks: each field a store receives, it uses.
type Target struct {
	// Session is the target's session ID.
	Session string
	// Entry is the token of the target's queue entry, 0 if it waits on
	// the key. A target waiting in line watches the entry ahead of its
	// own, not the key, so a store's WatchSet answers, once, a
	// WatchEntry request on an entry ahead of Entry when the key is
	// handed to the target: with the key's state after a pass, or with
	// the absent Record and its To after a marker (see Record.To); a
	// WatchEntry request on the target's own entry, or on one behind it,
	// is not answered. A store that cannot tell which entries are ahead
	// (Entry 0 on a target that has joined the line since the caller read
	// its record) may answer every WatchEntry request in the election
	// early. Such a target needs no
	// nudge.
	Entry uint64
	// Ahead (marking stores) is the entry just ahead of Entry in the queue
	// as the caller last saw it (its Owner and Token), or the zero Record
	// if the caller does not know it. It is a hint: a store that wakes the
	// target by nudging the entry ahead of its own nudges Ahead rather than
	// list the queue, and lists it if Ahead is gone. A wrong hint (an entry
	// between Ahead and Entry that the caller did not see) leaves the
	// target unwoken: a liveness matter, bounded by the hold-off of the
	// waiters that read the marker.
	Ahead Record
	// Value (passing stores) is the value the passed key holds; it has
	// been checked against Limits.MaxValueSize.
	Value []byte
}
