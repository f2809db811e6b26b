package lease

import (
	"context"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/internal/embedetcd"
	"github.com/leasehold/leasehold/internal/keys"
)

// TestResignLeavesInOneWrite: a resign deletes the leader key and the
// campaign's candidate record in one write (backends.LeavingDeleter), so
// no second write follows it beside the successor's create; on etcd both
// deletions carry one revision.
func TestResignLeavesInOneWrite(t *testing.T) {
	srv, err := embedetcd.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	cli, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	store, err := etcd.New(cli, etcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(store, Options{TTL: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	t.Cleanup(func() { _ = e.Close(context.Background()) })
	l, err := e.Campaign(ctx, "one-write")
	if err != nil {
		t.Fatal(err)
	}
	recs, rev, err := store.List(ctx, "one-write")
	for err == nil && len(recs) == 0 { // the record is written once the campaign's outcome is known
		recs, rev, err = store.WaitList(ctx, "one-write", rev)
	}
	if err != nil {
		t.Fatalf("waiting for the leader's record: %v", err)
	}
	watch := cli.Watch(ctx, etcd.DefaultPrefix, clientv3.WithPrefix(), clientv3.WithRev(int64(rev)+1),
		clientv3.WithFilterPut())
	if err := l.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	leader, record := keys.Leader(etcd.DefaultPrefix, "one-write"), keys.Roster(etcd.DefaultPrefix, "one-write")
	var leaderRev, recordRev int64
	for leaderRev == 0 || recordRev == 0 {
		select {
		case resp := <-watch:
			if err := resp.Err(); err != nil {
				t.Fatal(err)
			}
			for _, ev := range resp.Events {
				switch k := string(ev.Kv.Key); {
				case k == leader:
					leaderRev = ev.Kv.ModRevision
				case strings.HasPrefix(k, record):
					recordRev = ev.Kv.ModRevision
				}
			}
		case <-ctx.Done():
			t.Fatalf("deletions seen: leader key at %d, record at %d; want both", leaderRev, recordRev)
		}
	}
	if leaderRev != recordRev {
		t.Fatalf("leader key deleted at revision %d, record at %d: want one write", leaderRev, recordRev)
	}
}
