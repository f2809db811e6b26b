package backends

// Guarded is a write that Driver.GuardedPut makes while a term holds: a
// write to the store that commits only while an election's leader key
// still holds a given fencing token. A leader sends its writes to the
// coordinating store with its token, and the store itself rejects those
// of a leader whose term has ended, however late they arrive.
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
