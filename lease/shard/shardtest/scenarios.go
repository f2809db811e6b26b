package shardtest

import (
	"testing"
	"time"

	"github.com/leasehold/leasehold/lease/shard"
)

// coldStart: N members started together reach exact balance, every
// shard held by one member.
func coldStart(t *testing.T, st Store) {
	for _, c := range []struct{ n, shards int }{{3, 64}, {5, 256}} {
		t.Run("", func(t *testing.T) {
			w := st.world(t, c.shards)
			start := time.Now()
			ms := w.startAll(c.n, shard.Options{})
			w.Await("balance", st.wait(), func() bool { return w.Balanced(ms...) })
			t.Logf("N=%d M=%d: balanced %v after the first Join", c.n, c.shards, time.Since(start).Round(time.Millisecond))
		})
	}
}

// joinHandsOver: a member that joins a balanced group gets its share
// by handovers only, about M/(N+1) of them, and no shard waits long for
// its new holder.
func joinHandsOver(t *testing.T, st Store) {
	const n, shards = 3, 120
	w := st.world(t, shards)
	ms := w.startAll(n, shard.Options{})
	w.Await("balance", st.wait(), func() bool { return w.Balanced(ms...) })
	moves0, rel0 := w.snapshot()

	ms = append(ms, w.Join("new", shard.Options{}))
	d := w.Await("balance with the new member", st.wait(), func() bool { return w.Balanced(ms...) })
	moves, rel := w.snapshot()
	moved, want := moves-moves0, Churn(w.group, w.shards, IDs(ms[:n]), IDs(ms))
	t.Logf("join: %d moves (the assignment's difference %d; M/(N+1) = %d), balanced %v after Join, longest hand-off gap %v",
		moved, want, shards/(n+1), d.Round(time.Millisecond), w.maxGap.Round(time.Millisecond))
	if moved != want {
		t.Errorf("%d shards moved, want the assignment's difference, %d", moved, want)
	}
	for _, m := range ms[:n] {
		for reason, k := range rel[m.ID] {
			if k0 := rel0[m.ID][reason]; reason != shard.ReasonHandover && k > k0 {
				t.Errorf("%s released %d shards for %q, want handovers only", m.ID, k-k0, reason)
			}
		}
	}
	if w.maxGap > st.HandOff {
		t.Errorf("a handed-over shard waited %v for its new holder, want under %v", w.maxGap, st.HandOff)
	}
}

// leaveHandsOver: a graceful Leave hands every shard it holds to its
// new owner, and the others end balanced.
func leaveHandsOver(t *testing.T, st Store) {
	const n, shards = 4, 100
	w := st.world(t, shards)
	ms := w.startAll(n, shard.Options{})
	w.Await("balance", st.wait(), func() bool { return w.Balanced(ms...) })
	leaver := ms[n-1]
	held := len(leaver.Group.Owned())
	moves0, _ := w.snapshot()

	start := time.Now()
	ctx, cancel := contextWithTimeout(10 * time.Second)
	defer cancel()
	if err := leaver.Group.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	<-leaver.read
	w.Await("balance without the leaver", 10*time.Second, func() bool { return w.Balanced(ms[:n-1]...) })
	moves, rel := w.snapshot()
	t.Logf("leave: %d moves, %d of them the leaver's handovers, Leave took %v", moves-moves0, held, took.Round(time.Millisecond))
	if got := rel[leaver.ID][shard.ReasonHandover]; got != held || len(rel[leaver.ID]) != 1 {
		t.Errorf("the leaver released %v, want %d handovers and nothing else", rel[leaver.ID], held)
	}
	if want := Churn(w.group, w.shards, IDs(ms), IDs(ms[:n-1])); moves-moves0 != want {
		t.Errorf("%d shards moved, want the assignment's difference, %d (the leaver's %d and the others')",
			moves-moves0, want, held)
	}
}

// crash: the shards of a member whose host is cut off are held by
// the others within the TTL and a hand-off.
func crash(t *testing.T, st Store) {
	const n, shards = 3, 90
	w := st.world(t, shards)
	ms := w.startAll(n, shard.Options{})
	w.Await("balance", st.wait(), func() bool { return w.Balanced(ms...) })
	ms[0].Link.Cut()
	d := w.Await("the survivors hold every shard", st.Takeover, func() bool { return w.ownedBy(ms[1:]...) })
	t.Logf("crash: survivors hold every shard %v after the cut (TTL %v)", d.Round(time.Millisecond), st.TTL)
	w.Await("balance among the survivors", 10*time.Second, func() bool { return w.Balanced(ms[1:]...) })
}

// flap: a member that joins and leaves within Settle moves no shard
// that the others hold.
func flap(t *testing.T, st Store) {
	const n, shards, settle = 3, 60, 4 * time.Second
	w := st.world(t, shards)
	opts := shard.Options{Settle: settle}
	ms := w.startAll(n, opts)
	w.Await("balance", st.wait(), func() bool { return w.Balanced(ms...) })
	_, rel0 := w.snapshot()

	flap := w.Join("flapper", opts)
	stay := time.NewTimer(settle / 2) // the flapper's stay: half of Settle
	select {
	case <-stay.C:
	case <-flap.read:
		t.Fatal("the flapper's group ended by itself")
	}
	ctx, cancel := contextWithTimeout(10 * time.Second)
	defer cancel()
	if err := flap.Group.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	// Through a Settle after the flapper left, the window in which a
	// move to it, or back, would show, no other member releases a shard.
	w.quiet("a release by the others", settle+time.Second, func() bool {
		for _, m := range ms {
			for reason, k := range w.releases[m.ID] {
				if k > rel0[m.ID][reason] {
					return true
				}
			}
		}
		return !w.Balanced(ms...)
	})
}
