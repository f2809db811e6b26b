package backends

import "context"

// GuardedWriter is an optional interface of a Driver, found by type
// assertion (as database/sql finds a driver's optional interfaces): a write
// to the store that commits only while an election's leader key still
// holds a given fencing token. A leader sends its writes to the
// coordinating store with its token, and the store itself rejects those of
// a leader whose term has ended, however late they arrive.
//
// Stores that do not implement it offer no guarded writes; callers fence
// writes to other resources with package fencing instead.
type GuardedWriter interface {
	// GuardedPut sets w.Key to w.Value if and only if, when the write
	// commits, w.Election's leader key is the incarnation whose token is
	// w.Token. Otherwise nothing is written and the error wraps
	// ErrNotLeader; a token of 0 is always refused so. Like every adapter
	// call it makes one attempt: an error that wraps none of ErrNotLeader,
	// ErrUnavailable and ErrPermission leaves the outcome unknown.
	// Implementations must be safe for concurrent use.
	GuardedPut(ctx context.Context, w Guarded) error
}

// Guarded is a write that GuardedPut makes while a term holds.
type Guarded struct {
	// Election and Token name the term: the write commits only while
	// Election's leader key is the incarnation whose token is Token.
	Election string
	Token    uint64
	// Key is a portable name, checked as ValidateElection checks an
	// election name; the adapter keeps the value under its prefix in a
	// namespace of its own (DataSegment), apart from the leader keys.
	Key string
	// Value is what Key is set to.
	Value []byte
}

// DataSegment is the path segment under an adapter's prefix below which
// GuardedPut keeps its keys: "~data". No election name contains '~', so a
// data key never collides with a leader key.
const DataSegment = "~data"
