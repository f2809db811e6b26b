package etcd

import (
	"strconv"

	"go.etcd.io/etcd/api/v3/mvccpb"

	"github.com/leasehold/leasehold/backends"
)

// fill copies a leader key's state into rec, leaving Revision alone.
func fill(rec *backends.Record, kv *mvccpb.KeyValue) {
	rec.Value = kv.Value
	rec.Token = uint64(kv.CreateRevision)
	rec.Owner = leaseID(kv.Lease)
}

// leaseID renders an etcd lease ID as a session ID: lower-case hex, as
// etcdctl prints it.
func leaseID(id int64) string { return strconv.FormatInt(id, 16) }
