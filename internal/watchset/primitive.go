package watchset

import (
	"context"

	"github.com/leasehold/leasehold/backends"
)

// Source is an adapter's watch primitive: a change stream over the
// adapter's prefix, with a read beside it. It is all an adapter writes for
// a backends.WatchSet; the Set does the rest.
type Source[E any] interface {
	// Open opens a stream from the store's current position. The Set
	// calls it from its goroutine when a request waits and no stream is
	// open; ctx ends with the Set. Open does no more than start the
	// stream: its position, or its failure, comes as its first Batch.
	Open(ctx context.Context) Stream[E]
}

// Stream is one open change stream; see Source. Its methods are called
// from the Set's goroutine, except Read, which runs in a goroutine of its
// own, one Read at a time, beside the others; a Stream that is also a
// Readers has up to Readers() Reads run at once, which may end in any
// order.
type Stream[E any] interface {
	// Events is the stream's channel of raw news, which the Set selects
	// on; it hands each value, and whether the channel was open, to Next.
	Events() <-chan E

	// Next turns one value of Events into a Batch: the Facts it tells, in
	// the order of the store's writes, the position the stream has
	// passed, or the error that ended it.
	Next(e E, ok bool) Batch

	// Read reads, in one attempt, what each of reqs is about, and returns
	// for each a Fact of every kind its Kind heeds (see Fact), all as of
	// the read's revision: a Wait's LeaderState, a Gone's EntryState plus
	// its election's Passed if any, a Roster's RosterDigest. A
	// Read that fails returns a Batch whose Err ends each of reqs. A
	// stream whose Next tells only what differs between two states of the
	// store (Consul's views) must tell again, in its next Batch, the Facts
	// of a request that knows a later state than the one it read: a key
	// written and deleted between two states is not among what differs.
	Read(ctx context.Context, reqs []Request) Batch

	// Want tells the stream whether requests wait: the Set calls it after
	// each Batch of Next, and when it gets its first request or answers
	// its last. A stream whose store costs while it waits (a blocking
	// query) may pause while none waits.
	Want(pending bool)

	// Close ends the stream. The Set calls it once, from its goroutine,
	// after a Batch with an Err or when the Set closes.
	Close()
}

// Readers is what a Stream whose store serves reads side by side
// implements: Readers returns how many Reads the Set may run at once (at
// least 1). A request may then be in two Reads at once.
type Readers interface {
	Readers() int
}

// Batch is what a Stream tells at once.
type Batch struct {
	// Facts are the store's changes (Next) or states (Read), in order.
	Facts []Fact
	// Position, if not 0, is a revision at or before which the stream has
	// passed every change: a request that knows a state at or after it
	// needs no read. A stream's first Batch carries its position. A
	// stream whose reads cost nothing may tell math.MaxUint64, so that
	// every request is read. A Tracker's tells the store's revision as
	// it last heard it (see Tracker).
	Position uint64
	// RosterWrites, on a stream's first Batch, says that the stream
	// tells each write of a roster record as a RosterWrite, at a revision
	// comparable with Roster.List's: a roster request from at or after
	// the stream's start then waits for those, and is not read.
	RosterWrites bool
	// Reset says that the store's revisions went back (Consul's index
	// can), or that the stream lost what it watched (a ZooKeeper
	// connection dropped): every request pending is read again, from
	// Position on.
	Reset bool
	// Err, if not nil, ended the stream (Next) or the read (Read), with
	// the classes of backends.Change.Err; the requests it ends get it.
	Err error
}

// What names the kind of a Fact.
type What uint8

// The kinds of Fact. Each holds for Election at Revision.
const (
	// LeaderState: Record is the leader key's state, as a WatchKey
	// answer gives it (absent: Record.To names a marked target, if any).
	LeaderState What = iota + 1
	// LeaderWrite: the leader key was rewritten in its term, to
	// Record.Owner and Record.Value, with a token the stream cannot tell:
	// the term's own if Record.Owner is the holder a Wait knows (a
	// Proclaim), else unknown, and the Wait is read.
	LeaderWrite
	// EntryState: Record is the queue entry of Record.Owner, Record.Token
	// its place (0: the entry is absent) and Record.Revision its last
	// write, as Session.Enqueue's Records tell them.
	EntryState
	// Passed: the leader key was passed (backends.Capabilities.Passes) at Revision to
	// a session whose entry's token is Entry (0: it had none), and holds
	// that term still. Record is the leader key's state, the answer to
	// the WaitGone it wakes.
	Passed
	// RosterWrite: a record of the election's roster was written or
	// deleted at Revision.
	RosterWrite
	// RosterDigest: Entry is the backends.RosterDigest of the election's
	// roster.
	RosterDigest
	// Reread: the election's request of Kind, if any, is read again (its
	// store's watch fired, or ended): the stream does not tell what
	// changed, the read does.
	Reread
)

// Fact is one thing a stream or a read tells of an election. A stream
// whose reads carry no revision comparable with a request's (ZooKeeper's
// watches, each set by a read) tells math.MaxUint64 as Revision of a
// LeaderState, EntryState or Reread: such a Fact is newer than anything
// the request saw, as a read made after the last fact's was.
type Fact struct {
	What     What
	Election string
	Revision uint64
	Record   backends.Record
	Entry    uint64
	Kind     Kind // Reread: the kind of request to read again
}

// Kind names the kind of a Request: backends.WatchKind.
type Kind = backends.WatchKind

// The kinds of Request, those of backends.WatchRequest.
const (
	Wait   = backends.WatchKey    // a leader key's change
	Gone   = backends.WatchEntry  // a queue entry's end or nudge
	Roster = backends.WatchRoster // a roster's change
)

// Request is one pending request, as a Stream's Read gets it.
type Request struct {
	Kind Kind
	Tag  uint64
	// Known is, for Wait, the known state of the leader key; for Gone,
	// the queue entry; for Roster, the election and the revision the
	// roster was read at.
	Known backends.Record
	// Digest is, for Roster, the RosterDigest of the roster read.
	Digest uint64
	// Mine is, for Gone, the waiter's own entry (backends.WatchRequest).
	Mine backends.Record

	seen    uint64 // every change at or before it is reflected in Known
	queued  bool   // it waits in Set.toRead
	id      uint64 // the Set's number for it, unique while the Set lasts
	tracked bool   // the stream watches for it (Tracker)
}

// Tracker is what a Stream implements that watches, for each request,
// the keys it is about, not the adapter's whole prefix (etcd): a change
// then costs only the sets that wait for it. A request is covered by a
// watch from the revision it knows on (its own, or one that requests
// share, such as one of every roster). It is read first, and
// watched from the read's revision, if it is a Gone (a pass to a session
// behind its entry may precede it), or knows no revision (Known.Revision
// 0), or knows one before the stream's Position, which a Tracker's
// Batches tell as the store's revision when the stream last heard it: a
// watch from so far back would answer with a state since superseded. The
// Set calls Track and Untrack from its goroutine, as the other methods.
type Tracker interface {
	// Track starts watching what r is about, under id, telling in later
	// Batches every change made after revision from, or a Reread of r
	// for those made before its watches were. A watch the store
	// refuses or cannot start there ends the stream (Batch.Err).
	Track(id uint64, r Request, from uint64)
	// Untrack ends the watches of id, once its request is answered
	// (answered), or withdrawn or replaced. Facts of its watches already
	// on their way may still come. A stream may keep an answered
	// request's watches a while, for the election's next request of its
	// kind, which often asks for the same keys from the answer on.
	Untrack(id uint64, answered bool)
}
