package backends

import "context"

// GuardedWriter is an optional interface of a Store, found by type
// assertion (as database/sql finds a driver's optional interfaces): a write
// to the store that commits only while an election's leader key still
// holds a given fencing token. A leader sends its writes to the
// coordinating store with its token, and the store itself rejects those of
// a leader whose term has ended, however late they arrive.
//
// Stores that do not implement it offer no guarded writes; callers fence
// writes to other resources with package fencing instead.
type GuardedWriter interface {
	// GuardedPut sets key to value if and only if, when the write commits,
	// the election's leader key is the incarnation whose token is token.
	// Otherwise nothing is written and the error wraps ErrNotLeader; a
	// token of 0 is always refused so. key is a portable name, checked as
	// ValidateElection checks an election name; the adapter keeps the
	// value under its prefix in a namespace of its own (DataSegment),
	// apart from the leader keys. Like every adapter call it makes one
	// attempt: an error that wraps none of ErrNotLeader, ErrUnavailable
	// and ErrPermission leaves the outcome unknown. Implementations must
	// be safe for concurrent use.
	GuardedPut(ctx context.Context, election string, token uint64, key string, value []byte) error
}

// DataSegment is the path segment under an adapter's prefix below which
// GuardedPut keeps its keys: "~data". No election name contains '~', so a
// data key never collides with a leader key.
const DataSegment = "~data"
