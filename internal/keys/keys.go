// Package keys is the one home of the key layout that the etcd and Consul
// adapters share under their prefix: the leader keys, the guarded data
// (backends.DataSegment), the queue entries (backends.QueueSegment), the
// candidate records (backends.RosterSegment) and the layout marker
// (backends.LayoutSegment), and the value of a
// handover marker, which the ZooKeeper adapter shares too.
// The adapters build their keys with it, and the project's test harnesses
// reach a store's raw keys through it.
package keys

import (
	"strconv"
	"strings"

	"github.com/leasehold/leasehold/backends"
)

// Leader returns the leader key of election under prefix: prefix +
// election.
func Leader(prefix, election string) string { return prefix + election }

// Data returns the key at which a guarded write keeps key under prefix:
// prefix + backends.DataSegment + "/" + key.
func Data(prefix, key string) string { return prefix + backends.DataSegment + "/" + key }

// Queue returns the prefix of election's queue entries under prefix:
// prefix + backends.QueueSegment + "/" + election + "/~". An entry is that
// prefix + its session's ID. No election name segment begins with '~', so
// the entries of election "a/b" are not under the prefix of "a".
func Queue(prefix, election string) string {
	return prefix + backends.QueueSegment + "/" + election + "/~"
}

// Roster returns the prefix of election's candidate records under prefix:
// prefix + backends.RosterSegment + "/" + election + "/~". A record is
// that prefix + its session's ID. As with Queue, the records of election
// "a/b" are not under the prefix of "a".
func Roster(prefix, election string) string {
	return prefix + backends.RosterSegment + "/" + election + "/~"
}

// Layout returns the key of the layout marker under prefix (see
// backends.Layout): prefix + backends.LayoutSegment. It is one key, not a
// prefix.
func Layout(prefix string) string { return prefix + backends.LayoutSegment }

// Marker renders the value of a pass's term key, naming session to,
// whose queue entry has token entry (0: none): "<to> <entry>".
func Marker(to string, entry uint64) string { return to + " " + strconv.FormatUint(entry, 10) }

// ParseMarker parses a value that Marker rendered; ok is false for any
// other value, an empty one included.
func ParseMarker(v []byte) (to string, entry uint64, ok bool) {
	to, e, found := strings.Cut(string(v), " ")
	entry, err := strconv.ParseUint(e, 10, 64)
	if !found || err != nil || to == "" {
		return "", 0, false
	}
	return to, entry, true
}

// TermSegment is the path segment under an adapter's prefix below which
// an adapter that passes keys by rebinding them keeps each election's
// term key (etcd; see Term): "~term". No election name contains '~'.
const TermSegment = "~term"

// Term returns the key of election's term key under prefix: prefix +
// TermSegment + "/" + election. It is one key, not a prefix.
func Term(prefix, election string) string { return prefix + TermSegment + "/" + election }

// Split tells which key of the layout key is under prefix: seg is its
// segment ("" for a leader key; backends.QueueSegment, RosterSegment,
// TermSegment, DataSegment otherwise), election its
// election, and id, for a queue entry or a candidate record, its session's
// ID. ok is false for a key outside prefix, or a queue or roster key with
// no session ID, or a guarded data key.
func Split(prefix, key string) (seg, election, id string, ok bool) {
	rest, ok := strings.CutPrefix(key, prefix)
	if !ok || rest == "" {
		return "", "", "", false
	}
	if rest[0] != '~' {
		return "", rest, "", true
	}
	seg, rest, _ = strings.Cut(rest, "/")
	switch seg {
	case backends.QueueSegment, backends.RosterSegment:
		if election, id, ok = strings.Cut(rest, "/~"); ok { // no election name holds '~'
			return seg, election, id, true
		}
	case TermSegment:
		return seg, rest, "", rest != ""
	}
	return "", "", "", false
}
