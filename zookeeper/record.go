package zookeeper

import (
	"strconv"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// record builds the Record of a node read on l: st is nil if the node is
// absent. Token is the node's czxid and Owner its ephemeral owner. Revision
// is the highest zxid l had received when the read returned, which is at or
// after the read's position, and at least the node's mzxid. A persistent
// node is no leader node but a parent left by a version of this package
// that nested election names: it reads as absent (a Create replaces it).
func record(election string, data []byte, st *zk.Stat, l *link) (backends.Record, error) {
	rec := backends.Record{Election: election, Revision: uint64(l.zxid.Load())}
	if st == nil || st.EphemeralOwner == 0 {
		return rec, nil
	}
	rec.Value, rec.Token, rec.Owner = data, uint64(st.Czxid), sessionID(st.EphemeralOwner)
	rec.Revision = max(rec.Revision, uint64(st.Mzxid))
	return rec, nil
}

// sessionID renders a ZooKeeper session ID as a Session ID: lower-case
// hex, as ZooKeeper's logs and four-letter words print it.
func sessionID(id int64) string { return strconv.FormatUint(uint64(id), 16) }
