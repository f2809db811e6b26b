package lease

import (
	"context"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/internal/driver"
	"github.com/leasehold/leasehold/internal/keys"
)

// TestReleaseLeavesInOneWrite: a resign, and a handover, delete the
// campaign's candidate record in the write that lets go of the leader key
// (backends.End.Leave), so no second write follows it beside the
// successor's create; on etcd both carry one revision. A resign deletes
// the key; a handover on etcd passes it (backends.Capabilities.Passes), a put.
func TestReleaseLeavesInOneWrite(t *testing.T) {
	store, cli := embeddedStoreClient(t)
	for _, tc := range []struct {
		name    string
		release func(ctx context.Context, l *Leadership) error
	}{
		{"resign", func(ctx context.Context, l *Leadership) error { return l.Resign(ctx) }},
		{"handover", func(ctx context.Context, l *Leadership) error { return l.HandOver(ctx, "next") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			leader, next := elector(t, store, "first"), elector(t, store, "next")
			el := "one-write-" + tc.name
			l, err := leader.Campaign(ctx, el)
			if err != nil {
				t.Fatal(err)
			}
			go func() { _, _ = next.Campaign(ctx, el) }()
			rev := rosterOf(t, ctx, store, el, 2)
			watch := cli.Watch(ctx, etcd.DefaultPrefix, clientv3.WithPrefix(), clientv3.WithRev(int64(rev)+1))
			if err := tc.release(ctx, l); err != nil {
				t.Fatal(err)
			}
			key, record := keys.Leader(etcd.DefaultPrefix, el), keys.Roster(etcd.DefaultPrefix, el)+l.Session
			keyRev, recordRev := deletedAt(t, ctx, watch, key, record)
			if keyRev != recordRev {
				t.Fatalf("leader key let go of at revision %d, its record deleted at %d: want one write", keyRev, recordRev)
			}
		})
	}
}

// elector returns an elector on store with identity id, closed at t's end.
func elector(t *testing.T, store *backends.Store, id string) *LeaseElector {
	t.Helper()
	e, err := New(store, Options{TTL: 2 * time.Second, Identity: id})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close(context.Background()) })
	return e
}

// rosterOf waits until election's roster holds n records and returns the
// revision it was read at: each is written once its campaign's outcome is
// known.
func rosterOf(t *testing.T, ctx context.Context, store *backends.Store, election string, n int) uint64 {
	t.Helper()
	roster := driver.Of(store)
	recs, rev, err := roster.List(ctx, election)
	for err == nil && len(recs) < n {
		recs, rev, err = waitList(ctx, roster, election, recs, rev)
	}
	if err != nil {
		t.Fatalf("waiting for %d records in %q: %v", n, election, err)
	}
	return rev
}

// deletedAt returns the revisions of the first write of key (deleted, or
// passed) and of the deletion of record that watch shows.
func deletedAt(t *testing.T, ctx context.Context, watch clientv3.WatchChan, key, record string) (keyRev, recordRev int64) {
	t.Helper()
	for keyRev == 0 || recordRev == 0 {
		select {
		case resp := <-watch:
			if err := resp.Err(); err != nil {
				t.Fatal(err)
			}
			for _, ev := range resp.Events {
				switch k := string(ev.Kv.Key); {
				case k == key && keyRev == 0:
					keyRev = ev.Kv.ModRevision
				case strings.HasPrefix(k, record) && ev.Type == clientv3.EventTypeDelete:
					recordRev = ev.Kv.ModRevision
				}
			}
		case <-ctx.Done():
			t.Fatalf("deletions seen: leader key at %d, record at %d; want both", keyRev, recordRev)
		}
	}
	return keyRev, recordRev
}
