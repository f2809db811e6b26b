package consul

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/consul/api"
)

// queries are the blocking queries a Store has in flight, so that a
// request that fails on its way to Consul sends them again (see the
// package doc, "Waiting": a query blocked on a server cut off from its
// peers hears of nothing until that server has caught up). A query sent
// again costs one request, and answers nothing twice.
//
// An overloaded store fails requests too (their deadlines pass), and
// the shared query lists the whole prefix: so the queries are sent again
// at most once per kickEvery, which is enough to follow a client that
// moved on at the first failure.
type queries struct {
	mu      sync.Mutex
	running map[*query]struct{}
	kicked  time.Time // when kick last sent them again
}

// kickEvery bounds how often kick sends the queries again.
const kickEvery = time.Second

// query is one blocking query in flight.
type query struct {
	cancel context.CancelFunc
	sent   bool // sent again: its error is not an answer
}

// blocking runs q, a blocking query, with a context that kick may end
// first, and again as long as kick does.
func blocking[T any](qs *queries, ctx context.Context, q func(context.Context) (T, *api.QueryMeta, error)) (T, *api.QueryMeta, error) {
	for {
		qctx, cancel := context.WithCancel(ctx)
		r := &query{cancel: cancel}
		qs.mu.Lock()
		if qs.running == nil {
			qs.running = map[*query]struct{}{}
		}
		qs.running[r] = struct{}{}
		qs.mu.Unlock()
		v, meta, err := q(qctx)
		qs.mu.Lock()
		delete(qs.running, r)
		again := r.sent
		qs.mu.Unlock()
		cancel()
		if err == nil || !again || ctx.Err() != nil {
			return v, meta, err
		}
	}
}

// blockingGet reads key with a blocking query from index (see queries).
func (s *store) blockingGet(ctx context.Context, key string, index uint64) (*api.KVPair, *api.QueryMeta, error) {
	return blocking(&s.queries, ctx, func(ctx context.Context) (*api.KVPair, *api.QueryMeta, error) {
		return s.kv.Get(key, (&api.QueryOptions{WaitIndex: index, WaitTime: s.waitTime}).WithContext(ctx))
	})
}

// blockingList lists prefix with a blocking query from index (see
// queries).
func (s *store) blockingList(ctx context.Context, prefix string, index uint64) (api.KVPairs, *api.QueryMeta, error) {
	return blocking(&s.queries, ctx, func(ctx context.Context) (api.KVPairs, *api.QueryMeta, error) {
		return s.kv.List(prefix, (&api.QueryOptions{WaitIndex: index, WaitTime: s.waitTime}).WithContext(ctx))
	})
}

// kick sends every query in flight again, unless it did less than
// kickEvery ago.
func (qs *queries) kick() {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	if len(qs.running) == 0 || time.Since(qs.kicked) < kickEvery {
		return
	}
	qs.kicked = time.Now()
	for r := range qs.running {
		r.sent = true
		r.cancel()
	}
}

// pathFailed reports whether err, a failed request's, says that the way
// to Consul failed: no answer before the request's deadline, a transport
// error, or a 5xx (a server without a leader answers 500). A caller's
// cancellation, and Consul's answers (403, 404, 409, 429), are not.
func pathFailed(ctx context.Context, err error) bool {
	if errors.Is(ctx.Err(), context.Canceled) {
		return false
	}
	var st api.StatusError
	if errors.As(err, &st) {
		return st.Code >= 500
	}
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne)
}

// classify is the package's classify, after sending the Store's queries
// again if err says the way to Consul failed.
func (s *store) classify(op, election string, ctx context.Context, err error) error {
	if pathFailed(ctx, err) {
		s.queries.kick()
	}
	return classify(op, election, ctx, err)
}
