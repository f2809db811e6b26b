package shardtest

import (
	"testing"
	"time"

	"github.com/leasehold/leasehold/lease/shard"
)

// sessionExpired: a member whose session the store ends loses its
// shards, comes back on a new session, and the group is whole and
// balanced again.
func sessionExpired(t *testing.T, st Store) {
	const n, shards = 3, 60
	w := st.world(t, shards)
	ms := w.startAll(n, shard.Options{})
	w.Await("balance", st.wait(), func() bool { return w.Balanced(ms...) })
	_, rel0 := w.snapshot()
	held := len(ms[0].Group.Owned())
	w.srv.ExpireSession(t, ms[0].Elector.SessionID())
	total := func(r map[string]int) (n int) {
		for _, k := range r {
			n += k
		}
		return n
	}
	w.Await("m0's shards released", 10*time.Second, func() bool {
		return total(w.releases[ms[0].ID]) >= total(rel0[ms[0].ID])+held
	})
	_, rel := w.snapshot()
	t.Logf("m0 released %v", rel[ms[0].ID])
	d := w.Await("balance again", st.wait(), func() bool { return w.Balanced(ms...) })
	t.Logf("session expired: balanced again %v after its %d shards were released", d.Round(time.Millisecond), held)
}

// weights: shares follow the members' weights.
func weights(t *testing.T, st Store) {
	w := st.world(t, 100)
	a := w.Join("a", shard.Options{Weight: 1})
	b := w.Join("b", shard.Options{Weight: 3})
	w.Await("weighted balance", st.wait(), func() bool {
		n := w.counts()
		return n["a"] == 25 && n["b"] == 75
	})
	_, _ = a, b
}
