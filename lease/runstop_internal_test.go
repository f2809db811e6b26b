package lease

import (
	"context"
	"net/url"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/leasehold/leasehold/internal/embedetcd"
	"github.com/leasehold/leasehold/internal/harness"
)

// TestRunStopsCutOff: when Run's ctx ends while the store cannot be
// reached, Run's last resign waits at most stopResignWait, not the
// RequestTimeout a long TTL gives: a stopping process is not held for
// hours by a store it lost. The elector's Close then returns too.
func TestRunStopsCutOff(t *testing.T) {
	srv, err := embedetcd.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	link := harness.NewLink(t, []string{u.Host}, harness.ProxyOptions{})
	cli, err := clientv3.New(clientv3.Config{Endpoints: link.Addrs(), DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	store := storeOn(t, cli)
	opts := Options{TTL: time.Hour, RequestTimeout: 10 * time.Minute, Identity: "cut-off"}
	e, err := New(store, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	led, done := make(chan struct{}), make(chan error, 1)
	go func() {
		done <- e.Run(ctx, "run-stop", func(ctx context.Context, _ *Leadership) error {
			close(led)
			<-ctx.Done()
			return nil
		})
	}()
	select {
	case <-led:
	case err := <-done:
		t.Fatalf("Run returned before fn ran: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("Run's fn did not start within 20s")
	}
	link.Sever()
	cancel()
	stopped := time.Now()
	bound := 10 * time.Second // stopResignWait, 5s, with room
	select {
	case err := <-done:
		t.Logf("Run returned %v after %v", err, time.Since(stopped).Round(time.Millisecond))
	case <-time.After(bound):
		t.Fatalf("Run had not returned %v after its ctx ended, with the store cut off: its resign waits on RequestTimeout %v", bound, opts.RequestTimeout)
	}
	cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer ccancel()
	closed := make(chan struct{})
	go func() { _ = e.Close(cctx); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close had not returned 10s after its 5s ctx began")
	}
}
