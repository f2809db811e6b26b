package backends

// End is a request to end a term on a held leader key, Session.End: release
// it, leave the roster with it, or hand it to a named target. One request
// is one write, guarded by "the key exists, is bound to the session and
// holds Token", so an end can never touch a successor's key.
//
// An end with a target passes the key, rebinding it to the target's
// session with a greater token (Capabilities.Passes: etcd, ZooKeeper,
// Consul); an end without one deletes it.
//
// Session.End returns, for a pass, the key as passed, and for a plain end
// the zero Record. Its errors, each of a request that changed nothing:
//   - ErrNotFound if the key is absent or holds another token or session
//     (with ErrSessionExpired too if the store knows the session is gone);
//     the caller then leaves the roster, if it meant to, with Session.Leave;
//   - ErrNoCandidate if To names a target that does not stand in the
//     election: its node there (see Target) is missing or its session has
//     ended; a request that fails both ways fails with ErrNotFound;
//   - errors.ErrUnsupported for a target on a store that does not pass
//     (Capabilities.Passes false);
//   - ErrPermission if the credentials may not write what the end writes.
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
// the node exists; it checks the candidate record too, so that once a
// campaign's record is gone no key can be passed to it.
type Target struct {
	// Session is the target's session ID.
	Session string
	// Entry is the token of the target's queue entry, 0 if it waits on
	// the key. A target waiting in line watches the entry ahead of its
	// own, not the key, so a store's WatchSet answers, once, the target's
	// WatchEntry request, on an entry ahead of Entry and naming Entry as
	// its own (WatchRequest.Mine), when the key is passed to the target,
	// with the key's state after the pass. A WatchEntry request on the
	// target's own entry, or on one behind it, is not answered, nor one
	// that names another entry as its own. One that names none, on an
	// entry ahead of Entry, may be answered, once per set and pass (a
	// store whose set sees every write in the election answers it); a
	// store whose set watches keys one by one (etcd) learns of the pass
	// from the target's own entry, which the pass writes, and cannot
	// answer it. A store that cannot tell which entries are ahead (Entry
	// 0 on a target that has joined the line since the caller read its
	// record) may answer every WatchEntry request in the election early.
	Entry uint64
	// Value is the value the passed key holds; it has been checked
	// against Limits.MaxValueSize.
	Value []byte
}
