package etcd

import (
	"context"
	"strconv"
	"sync/atomic"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/metadata"
)

// streamKey is the metadata key that sets a watch stream apart.
//
// clientv3 carries all the watches whose contexts have the same outgoing
// metadata on one gRPC stream, which sends the auth token it had when it
// opened. etcd checks that token at each watch created on the stream, not
// at the events of the watches on it; its simple tokens lapse after
// --auth-token-ttl unused. A stream that outlives its token thus keeps its
// watches but refuses every new one with "invalid auth token" for as long
// as any of its watches lives (github.com/etcd-io/etcd/issues/12385), which no retry on the
// same stream cures. clientv3 takes a fresh token for each stream it
// opens, so the adapter opens watches on streams of their own as below.
const streamKey = "leasehold-watch-stream"

// streamSeq numbers the streams of every store in the process: stores on
// one client must not name a stream alike.
var streamSeq atomic.Uint64

// streams names a store's watch streams: a WatchSet's stream, long lived
// by design, is its own at each open. It is safe for concurrent use.
type streams struct{}

// own returns ctx with the metadata of a new stream that requires a
// leader.
func (st *streams) own(ctx context.Context) context.Context {
	return withMetadata(ctx, st.next())
}

// next returns the metadata of a new stream that requires a leader.
func (st *streams) next() metadata.MD {
	return metadata.Pairs(rpctypes.MetadataRequireLeaderKey, rpctypes.MetadataHasLeader,
		streamKey, strconv.FormatUint(streamSeq.Add(1), 10))
}

// withMetadata returns ctx with md added to its outgoing metadata. With
// none of its own, md itself is used: gRPC and clientv3 only read it.
func withMetadata(ctx context.Context, md metadata.MD) context.Context {
	if own, ok := metadata.FromOutgoingContext(ctx); ok {
		return metadata.NewOutgoingContext(ctx, metadata.Join(own, md))
	}
	return metadata.NewOutgoingContext(ctx, md)
}
