package zookeeper

import (
	"strconv"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// record builds the Record of a node read on l: st is nil if the node is
// absent. Token is the node's czxid and Owner its ephemeral owner.
// Revision is the node's mzxid: the write that made the state read, which
// held from then until the read at least. An absent node has no Stat, and
// ZooKeeper tells no deletion's zxid: its Revision is l's position
// (link.position), at or before the read. A persistent node is no leader
// node but a parent left by a version of this package that nested
// election names: it reads as absent (a Create replaces it).
func record(election string, data []byte, st *zk.Stat, l *link) (backends.Record, error) {
	l.saw(st)
	if st == nil || st.EphemeralOwner == 0 {
		return backends.Record{Election: election, Revision: l.position()}, nil
	}
	return backends.Record{Election: election, Value: data, Token: uint64(st.Czxid),
		Owner: sessionID(st.EphemeralOwner), Revision: uint64(st.Mzxid)}, nil
}

// since returns rec, a state of known's node read after known, with its
// Revision above known's if rec is absent and known present: the node
// was deleted after known.Revision, its mzxid.
func since(known, rec backends.Record) backends.Record {
	if !rec.Exists() && known.Exists() {
		rec.Revision = max(rec.Revision, known.Revision+1)
	}
	return rec
}

// sessionID renders a ZooKeeper session ID as a Session ID: lower-case
// hex, as ZooKeeper's logs and four-letter words print it.
func sessionID(id int64) string { return strconv.FormatUint(uint64(id), 16) }
