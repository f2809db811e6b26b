package shard_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/lease/shard"
)

// TestSessionExpired: a member whose session the store ends loses its
// shards, comes back on a new session, and the group is whole and
// balanced again.
func TestSessionExpired(t *testing.T) {
	const n, shards = 3, 60
	w := newWorld(t, shards)
	ms := w.startAll(n, shard.Options{})
	w.await("balance", 30*time.Second, func() bool { return w.balanced(ms...) })
	_, rel0 := w.snapshot()
	held := len(ms[0].g.Owned())
	w.srv.ExpireSession(t, ms[0].e.SessionID())
	total := func(r map[string]int) (n int) {
		for _, k := range r {
			n += k
		}
		return n
	}
	w.await("m0's shards released", 10*time.Second, func() bool {
		return total(w.releases[ms[0].id]) >= total(rel0[ms[0].id])+held
	})
	_, rel := w.snapshot()
	t.Logf("m0 released %v", rel[ms[0].id])
	d := w.await("balance again", 30*time.Second, func() bool { return w.balanced(ms...) })
	t.Logf("session expired: balanced again %v after its %d shards were released", d.Round(time.Millisecond), held)
}

// TestWeights: shares follow the members' weights.
func TestWeights(t *testing.T) {
	w := newWorld(t, 100)
	a := w.join("a", shard.Options{Weight: 1})
	b := w.join("b", shard.Options{Weight: 3})
	w.await("weighted balance", 30*time.Second, func() bool {
		n := w.counts()
		return n["a"] == 25 && n["b"] == 75
	})
	_, _ = a, b
}

// TestJoinOptions: Join names the bad option and its range.
func TestJoinOptions(t *testing.T) {
	w := newWorld(t, 1)
	e, err := lease.New(w.srv.Store, lease.Options{TTL: ttl})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	ctx := context.Background()
	if _, err := shard.Join(ctx, nil, "g", shard.Options{Shards: 1}); !errors.Is(err, lease.ErrInvalidOption) {
		t.Errorf("nil elector: %v, want ErrInvalidOption", err)
	}
	for _, c := range []struct {
		group string
		opts  shard.Options
		want  string
	}{
		{"g", shard.Options{}, "Shards 0 must be 1 to 65536"},
		{"g", shard.Options{Shards: 65537}, "Shards 65537"},
		{"g", shard.Options{Shards: 8, Weight: 1001}, "Weight 1001 must be 1 to 1000"},
		{"g", shard.Options{Shards: 8, Weight: -1}, "Weight -1"},
		{"g", shard.Options{Shards: 8, Settle: -time.Second}, "Settle -1s must be at least 0"},
		{"bad//name", shard.Options{Shards: 8}, "group name"},
	} {
		_, err := shard.Join(ctx, e, c.group, c.opts)
		if !errors.Is(err, lease.ErrInvalidOption) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Join(%q, %+v) = %v, want ErrInvalidOption saying %q", c.group, c.opts, err, c.want)
		}
	}
	full := map[string]string{}
	for _, k := range strings.Fields("a b c d e f g") {
		full[k] = "x"
	}
	e2, err := lease.New(w.srv.Store, lease.Options{TTL: ttl, Labels: full})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close(context.Background())
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := shard.Join(tctx, e2, "g", shard.Options{Shards: 8}); !errors.Is(err, lease.ErrInvalidOption) || !strings.Contains(err.Error(), "WithLabels") {
		t.Errorf("Join with 7 elector labels = %v, want ErrInvalidOption from the members record's labels", err)
	}
}
