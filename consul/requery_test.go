package consul

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"
)

// TestPathFailed: a Store sends its blocking queries again after a
// request that got no answer in time, met a transport error or a 5xx, and
// not after Consul's own answers or the caller's cancellation.
func TestPathFailed(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	bg := context.Background()
	dial := &url.Error{Op: "Put", URL: "http://x", Err: &net.OpError{Op: "dial", Err: errors.New("refused")}}
	for _, c := range []struct {
		name string
		ctx  context.Context
		err  error
		want bool
	}{
		{"deadline", bg, fmt.Errorf("put: %w", context.DeadlineExceeded), true},
		{"transport", bg, dial, true},
		{"500", bg, api.StatusError{Code: 500, Body: "No cluster leader"}, true},
		{"403", bg, api.StatusError{Code: 403, Body: "Permission denied"}, false},
		{"429", bg, api.StatusError{Code: 429}, false},
		{"rolled back", bg, &rolledBack{}, false},
		{"caller cancelled", canceled, dial, false},
	} {
		if got := pathFailed(c.ctx, c.err); got != c.want {
			t.Errorf("%s: pathFailed = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestKickSendsAgain: a blocking query that kick ends is sent again, and
// its end is not returned; one that ends by itself returns.
func TestKickSendsAgain(t *testing.T) {
	var qs queries
	sent := make(chan struct{}, 4)
	calls := 0
	done := make(chan error, 1)
	go func() {
		_, _, err := blocking(&qs, context.Background(), func(ctx context.Context) (int, *api.QueryMeta, error) {
			calls++
			if calls == 3 {
				return 1, &api.QueryMeta{}, nil
			}
			sent <- struct{}{}
			<-ctx.Done()
			return 0, nil, ctx.Err()
		})
		done <- err
	}()
	for range 2 {
		<-sent
		qs.mu.Lock()
		qs.kicked = time.Time{} // as if kickEvery had passed
		qs.mu.Unlock()
		qs.kick()
	}
	if err := <-done; err != nil || calls != 3 {
		t.Fatalf("blocking = %v after %d sends, want nil after 3", err, calls)
	}
}
