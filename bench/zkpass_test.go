package bench

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/bench/internal/env"
	"github.com/leasehold/leasehold/bench/internal/stat"
)

// TestZooKeeperPassCost measures, on one ZooKeeper server with
// go-zookeeper alone, the round trip of the write each library's graceful
// hand-off makes: zk.Lock's delete of its node, and the multi of
// leasehold's pass that also leaves (it sets the pointer at its version,
// checks the target's candidate record, sets the target's queue entry to
// wake it, and deletes the leader's lead node and record: the zookeeper
// package's End). BENCH_ZKPASS rounds, each writing both, in turn, after
// the same pause. It measures nothing the benchmark reports.
func TestZooKeeperPassCost(t *testing.T) {
	k, _ := strconv.Atoi(os.Getenv("BENCH_ZKPASS"))
	if k <= 0 {
		t.Skip("BENCH_ZKPASS (rounds) not set")
	}
	st := startStore(t, env.ZooKeeper)
	a, b := zkConn(t, st.Endpoints), zkConn(t, st.Endpoints)
	for _, p := range []string{"/p", "/p/ptr", "/p/roster", "/p/q"} {
		if _, err := a.Create(p, []byte("x"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	var del, pass []time.Duration
	for i := range k {
		d, err := zkWrite(a, b, i, false)
		if err != nil {
			t.Fatal(err)
		}
		del = append(del, d)
		if d, err = zkWrite(a, b, i, true); err != nil {
			t.Fatal(err)
		}
		pass = append(pass, d)
	}
	for _, s := range []struct {
		name string
		d    []time.Duration
	}{{"zk.Lock's delete", del}, {"leasehold's pass multi (5 ops)", pass}} {
		sum := stat.Summarize(s.d)
		t.Logf("%-32s n %d, p50 %.2f ms, p99 %.2f ms, max %.2f ms", s.name, sum.N, sum.P50, sum.P99, sum.Max)
	}
}

// zkWrite makes round i's nodes, pauses, and times one write: the
// delete of the leader's node, or the pass multi.
func zkWrite(a, b *zk.Conn, i int, multi bool) (time.Duration, error) {
	acl := zk.WorldACL(zk.PermAll)
	lead, rec := fmt.Sprintf("/p/q/a-%d-%t", i, multi), fmt.Sprintf("/p/roster/a-%d-%t", i, multi)
	toRec, toEntry := fmt.Sprintf("/p/roster/b-%d-%t", i, multi), fmt.Sprintf("/p/q/b-%d-%t", i, multi)
	for _, n := range []struct {
		c    *zk.Conn
		path string
	}{{a, lead}, {a, rec}, {b, toRec}, {b, toEntry}} {
		if _, err := n.c.Create(n.path, nil, zk.FlagEphemeral, acl); err != nil {
			return 0, err
		}
	}
	_, ptr, err := a.Get("/p/ptr")
	if err != nil {
		return 0, err
	}
	time.Sleep(30 * time.Millisecond) // the write after a pause, as a hand-off's is
	start := time.Now()
	if multi {
		_, err = a.Multi(&zk.SetDataRequest{Path: "/p/ptr", Data: []byte("b-0000000001 12345678"), Version: ptr.Version},
			&zk.CheckVersionRequest{Path: toRec, Version: -1},
			&zk.SetDataRequest{Path: toEntry, Data: []byte("p"), Version: -1},
			&zk.DeleteRequest{Path: lead, Version: -1}, &zk.DeleteRequest{Path: rec, Version: -1})
	} else {
		err = a.Delete(lead, -1)
	}
	d := time.Since(start)
	for _, p := range []string{lead, rec, toRec, toEntry} {
		_ = a.Delete(p, -1)
	}
	return d, err
}

// zkConn returns a go-zookeeper connection with a session, closed when t
// ends.
func zkConn(t *testing.T, servers []string) *zk.Conn {
	c, ev, err := zk.Connect(servers, 4*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	deadline := time.After(30 * time.Second)
	for {
		select {
		case e := <-ev:
			if e.State == zk.StateHasSession {
				return c
			}
		case <-deadline:
			t.Fatal("no ZooKeeper session within 30s")
		}
	}
}
