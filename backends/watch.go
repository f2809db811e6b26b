package backends

import (
	"encoding/binary"
	"hash/fnv"
)

// WatchSet is a set of watch requests over one stream, started by
// Driver.Watch: one watch over many elections. Through it an elector that
// holds or waits for M elections keeps one stream to the store (etcd: one
// gRPC watch stream, with a watch per key a request is about; ZooKeeper:
// the watches of one connection, delivered to one callback; Consul: one
// blocking query on the prefix) and no goroutine or connection per
// election. The stream also carries the candidate records of the
// elections (etcd's watch of a roster request's records and Consul's
// blocking query on the prefix carry them, and ZooKeeper's set watches
// the roster node's children): through it a
// leader follows its election's roster with no watch, goroutine or
// request of its own while the roster stays as it is: only a change costs
// a Driver.List.
//
// A WatchSet answers each request once, through the deliver function given
// to Watch, and then forgets it. Requests are keyed by election: each
// election has at most one request at a time, and a new request for it
// replaces the old. A request carries a Tag of the caller's choosing that
// its Change echoes, so that the caller can tell the answer to a replaced
// request from the answer to its current one. Roster requests are kept
// apart from WatchKey and WatchEntry requests: an election has at most
// one roster request and one other (a WatchKey or a WatchEntry one), and
// a WatchRoster request replaces only the election's roster request.
//
// Its methods do not block on I/O or on deliver, and are safe for
// concurrent use.
type WatchSet interface {
	// Wait asks for what req.Kind, one of WatchKey, WatchEntry and
	// WatchRoster, names (see WatchKind) about the election
	// req.Known.Election, answered once with a Change echoing req.Tag.
	Wait(req WatchRequest)

	// Stop withdraws election's request of kind, if any: for WatchRoster
	// its roster request, for WatchKey or WatchEntry its WatchKey or
	// WatchEntry request, whichever it is. An answer already on its way
	// may still be delivered; its Tag tells it apart.
	Stop(election string, kind WatchKind)

	// Close stops the stream and every request. It waits for a deliver in
	// progress, so it must not be called from deliver. No Change is
	// delivered after Close returns, and no request is accepted.
	Close() error
}

// WatchKind is the kind of a WatchRequest: what it waits for.
type WatchKind uint8

// The kinds of WatchRequest.
const (
	// WatchKey asks for the first state of Known.Election's leader key
	// that differs from Known (Record.Differs: another Token or Value),
	// the state read at Known.Revision. A change made after
	// Known.Revision and before the request is answered at once (after
	// a read, if the set's stream cannot tell). The answer is the first
	// differing state after Known.Revision or a later one: a change both
	// made and superseded before the set began to watch may be skipped.
	// It is never a state before Known: a read made for an earlier
	// request (one this request replaced) answers none but that one, as
	// what it read may predate what this request knows. An answer whose
	// Revision is below Known.Revision is taken as stale by package
	// lease's observers, which read the key again with Driver.Get.
	// A change must be answered within a round trip of it, not on a
	// polling period. If the store can no longer tell, the answer's Err
	// wraps ErrCompacted, and the caller reads again with Driver.Get.
	WatchKey WatchKind = iota + 1

	// WatchEntry asks to be told when a queue entry, Known (from
	// Session.Enqueue or Driver.Ahead), no longer exists: answered at once
	// if it is already gone, within a round trip of its deletion
	// otherwise, and possibly early, for example when the store can no
	// longer tell (the caller looks again with Driver.Ahead); and when a
	// pass wakes the line (see Target.Entry).
	WatchEntry

	// WatchRoster asks to be told when Known.Election's roster differs
	// from the records Driver.List returned at Known.Revision, whose
	// RosterDigest is Digest (a record joined, left, or changed its
	// value): a change made after that revision and before the request
	// is answered at once, and a later one within a round trip of it, not
	// on a polling period; an answer may come early, with the roster
	// unchanged. The answer is a Change with Roster set; the caller reads
	// the roster again with Driver.List. A broken stream answers with its
	// error, as for WatchKey. A set that tells changes by revision alone
	// may ignore Digest; one that compares rosters compares digests, so
	// that a follower keeps 16 bytes per election, not the records.
	WatchRoster
)

// WatchRequest is one request to a WatchSet (WatchSet.Wait).
type WatchRequest struct {
	// Kind says what the request waits for.
	Kind WatchKind
	// Tag is the caller's, echoed by the answer's Change.
	Tag uint64
	// Known is, for WatchKey, the known state of the leader key; for
	// WatchEntry, the queue entry; for WatchRoster, the election and the
	// revision the roster was read at (Election and Revision only).
	Known Record
	// Digest is, for WatchRoster, the RosterDigest of the roster read.
	Digest uint64
	// Mine is, for WatchEntry, the waiter's own queue entry, behind
	// Known (Owner and Token, from Session.Enqueue); zero if the caller
	// has none. A pass to a session in line wakes the request that names
	// the target's entry as Mine, and no other that names one (see
	// Target.Entry). A set that watches keys one by one (etcd) learns of
	// the pass from the target's own entry, which the pass writes: without
	// Mine such a set wakes no target in line.
	Mine Record
}

// Change is a WatchSet's answer to one request.
type Change struct {
	// Election and Tag are those of the request answered.
	Election string
	Tag      uint64
	// Record is, for WatchKey, the new state of the leader key; for
	// WatchEntry, the entry that is gone, or, for an answer a pass
	// wakes in line (see Target.Entry), the leader key's state then, as
	// a WatchKey answer would give it (its Token or Owner differs from
	// the entry's).
	Record Record
	// Roster marks the answer to a WatchRoster request: the roster of
	// Election changed. Record then holds Election only; the caller reads the
	// roster with Driver.List.
	Roster bool
	// Err is nil, or says why the request ended without an answer, with
	// the classes of errors.go: ErrCompacted (the caller reads again and
	// asks again), ErrUnavailable (the stream broke; the set restarts it
	// for the requests made after), ErrPermission. The request is
	// forgotten either way.
	Err error
}

// RosterDigest returns a 64-bit FNV-1a hash of recs, in their order, as
// Driver.List returns them: each record's Owner, Token and Value. Two
// rosters with the same records in the same order have the same digest;
// a WatchSet that compares rosters compares their digests.
func RosterDigest(recs []Record) uint64 {
	h := fnv.New64a()
	var n [8]byte
	for _, r := range recs {
		binary.BigEndian.PutUint64(n[:], uint64(len(r.Owner)))
		h.Write(n[:])
		h.Write([]byte(r.Owner))
		binary.BigEndian.PutUint64(n[:], r.Token)
		h.Write(n[:])
		binary.BigEndian.PutUint64(n[:], uint64(len(r.Value)))
		h.Write(n[:])
		h.Write(r.Value)
	}
	return h.Sum64()
}
