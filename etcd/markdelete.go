package etcd

import (
	"go.etcd.io/etcd/api/v3/mvccpb"

	"github.com/leasehold/leasehold/internal/keys"
)

// etcd passes keys (backends.Limits.Passes) and writes no handover
// marker. The WatchSet still reads the marker key that earlier layouts
// wrote, until the shared watch engine replaces it.

// markerKey returns the etcd key of election's handover marker.
func (s *store) markerKey(election string) string { return keys.Handover(s.prefix, election) }

// marker is a parsed handover marker; to is empty for none.
type marker struct {
	to    string
	entry uint64
	rev   uint64 // the marker's mod revision
}

// parseMarker parses the marker kv; nil or malformed: none.
func parseMarker(kv *mvccpb.KeyValue) marker {
	if kv == nil {
		return marker{}
	}
	to, entry, ok := keys.ParseMarker(kv.Value)
	if !ok {
		return marker{}
	}
	return marker{to: to, entry: entry, rev: uint64(kv.ModRevision)}
}
