package etcd

import (
	"context"
	"sync"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
)

// outbox sends a stream's watch creates and cancels from a goroutine of
// its own (run), in order, so that the Set's goroutine never waits on a
// send: etcd stops reading a gRPC stream whose responses the client does
// not take, and the Set's goroutine is what takes them. It is safe for
// concurrent use.
type outbox struct {
	mu   sync.Mutex
	q    []outgoing
	wake chan struct{}
}

// outgoing is one message for one gRPC stream.
type outgoing struct {
	ws  etcdserverpb.Watch_WatchClient
	req *etcdserverpb.WatchRequest
}

func newOutbox() *outbox { return &outbox{wake: make(chan struct{}, 1)} }

// put queues req for ws. A failed send shows as ws's end.
func (o *outbox) put(ws etcdserverpb.Watch_WatchClient, req *etcdserverpb.WatchRequest) {
	o.mu.Lock()
	o.q = append(o.q, outgoing{ws, req})
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// run sends what is queued until ctx ends.
func (o *outbox) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-o.wake:
		}
		for {
			o.mu.Lock()
			q := o.q
			o.q = nil
			o.mu.Unlock()
			if len(q) == 0 {
				break
			}
			for _, m := range q {
				_ = m.ws.Send(m.req)
			}
		}
	}
}
