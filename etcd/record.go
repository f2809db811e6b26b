package etcd

import (
	"strconv"

	"go.etcd.io/etcd/api/v3/mvccpb"

	"github.com/leasehold/leasehold/backends"
)

// fill copies a leader key's state into rec, given its term key (nil:
// absent; see tokenOf), leaving Revision alone.
func fill(rec *backends.Record, kv, term *mvccpb.KeyValue) {
	rec.Value = kv.Value
	rec.Token = tokenOf(kv, term)
	rec.Owner = leaseID(kv.Lease)
}

// leaseID renders an etcd lease ID as a session ID: lower-case hex, as
// etcdctl prints it.
func leaseID(id int64) string { return strconv.FormatInt(id, 16) }
