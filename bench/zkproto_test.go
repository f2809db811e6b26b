package bench

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/bench/internal/env"
	"github.com/leasehold/leasehold/bench/internal/scenario"
	"github.com/leasehold/leasehold/bench/internal/stat"
)

// TestZooKeeperHandoffProtocol measures, on one ZooKeeper server with
// go-zookeeper alone, a hand-off's store protocol end to end, from the
// leader's write to the waiter's last read, and the write alone, for
// each of protoVariants: zk.Lock's, leasehold's pass and a shorter one,
// each with and without the watches kept beside it. BENCH_ZKPROTO
// rounds, each running every variant in turn after the same idle as the
// benchmark's hand-offs (scenario.Pace). It measures nothing the
// benchmark reports.
func TestZooKeeperHandoffProtocol(t *testing.T) {
	k, _ := strconv.Atoi(os.Getenv("BENCH_ZKPROTO"))
	if k <= 0 {
		t.Skip("BENCH_ZKPROTO (rounds) not set")
	}
	st := startStore(t, env.ZooKeeper)
	a, b := zkConn(t, st.Endpoints), zkConn(t, st.Endpoints)
	for _, p := range []string{"/p", "/p/ptr", "/p/roster", "/p/q"} {
		if _, err := a.Create(p, []byte("x"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	got, writes := make([][]time.Duration, len(protoVariants)), make([][]time.Duration, len(protoVariants))
	for i := range k {
		for v, pv := range protoVariants {
			d, w, err := zkProto(a, b, i, v, pv)
			if err != nil {
				t.Fatal(err)
			}
			got[v], writes[v] = append(got[v], d), append(writes[v], w)
		}
	}
	for v, pv := range protoVariants {
		sum := stat.Summarize(got[v])
		t.Logf("%-36s n %d, p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms; the write alone: p50 %.2f ms, p99 %.2f ms",
			pv.name, sum.N, sum.P50, quantile(got[v], 0.9), sum.P99, sum.Max, quantile(writes[v], 0.5), quantile(writes[v], 0.99))
	}
}

// quantile returns d's q quantile (nearest rank) in milliseconds.
func quantile(d []time.Duration, q float64) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[int(math.Ceil(q*float64(len(s))))-1]) / float64(time.Millisecond)
}

// The writes a protoVariant hands off with.
const (
	lockDelete = iota // zk.Lock's: delete the leader's node
	pass5             // leasehold's pass multi
	pass3             // set the pointer, delete the lead node and record
)

// protoVariant is one hand-off protocol of TestZooKeeperHandoffProtocol:
// its write, and the watches set beside it (nil: none; electorWatches:
// those electors keep, so that the multi notifies both connections as a
// hand-off's does; lockWatches: a loss-aware leader's on zk.Lock's
// protocol). The waiter watches the node ahead, and its own entry too for
// pass5, whose multi sets it; it lists the lock's children after
// lockDelete, and reads the pointer otherwise.
type protoVariant struct {
	name    string
	write   int
	watches func(a, b *zk.Conn, lead string) error
}

// protoVariants are the protocols TestZooKeeperHandoffProtocol measures.
var protoVariants = []protoVariant{
	{"zk.Lock: delete, list", lockDelete, nil},
	{"pass: 5-op multi, 1 read", pass5, nil},
	{"pass: 3-op multi, 1 read", pass3, nil},
	{"pass: 5-op, electors' watches", pass5, electorWatches},
	{"zk.Lock, leader watching its node", lockDelete, lockWatches(false)},
	{"zk.Lock, leader watching node, list", lockDelete, lockWatches(true)},
}

// zkProto runs round i of variant v, pv, and times it, and its write.
func zkProto(a, b *zk.Conn, i, v int, pv protoVariant) (total, write time.Duration, err error) {
	acl := zk.WorldACL(zk.PermAll)
	lead, rec := fmt.Sprintf("/p/q/a-%d-%d", i, v), fmt.Sprintf("/p/roster/a-%d-%d", i, v)
	toRec, toEntry := fmt.Sprintf("/p/roster/b-%d-%d", i, v), fmt.Sprintf("/p/q/b-%d-%d", i, v)
	for _, n := range []struct {
		c    *zk.Conn
		path string
	}{{a, lead}, {a, rec}, {b, toRec}, {b, toEntry}} {
		if _, err := n.c.Create(n.path, nil, zk.FlagEphemeral, acl); err != nil {
			return 0, 0, err
		}
	}
	defer func() {
		for _, p := range []string{lead, rec, toRec, toEntry} {
			_ = a.Delete(p, -1)
		}
	}()
	_, ptr, err := a.Get("/p/ptr")
	if err != nil {
		return 0, 0, err
	}
	_, _, aheadW, err := b.GetW(lead)
	if err != nil {
		return 0, 0, err
	}
	if pv.watches != nil {
		if err := pv.watches(a, b, lead); err != nil {
			return 0, 0, err
		}
	}
	var ownW <-chan zk.Event // nil: never ready, but for the full pass
	if pv.write == pass5 {
		if _, _, ownW, err = b.GetW(toEntry); err != nil {
			return 0, 0, err
		}
	}
	done := make(chan error, 1)
	var end time.Time
	go func() {
		select {
		case <-aheadW:
		case <-ownW:
		}
		var err error
		if pv.write == lockDelete {
			_, _, err = b.Children("/p/q")
		} else {
			_, _, err = b.Get("/p/ptr")
		}
		end = time.Now()
		done <- err
	}()
	time.Sleep(scenario.Pace) // the write after an idle, as a hand-off's is
	start := time.Now()
	switch pv.write {
	case lockDelete:
		err = a.Delete(lead, -1)
	case pass5:
		_, err = a.Multi(&zk.SetDataRequest{Path: "/p/ptr", Data: []byte("b-0000000001 12345678"), Version: ptr.Version},
			&zk.CheckVersionRequest{Path: toRec, Version: -1},
			&zk.SetDataRequest{Path: toEntry, Data: []byte("p"), Version: -1},
			&zk.DeleteRequest{Path: lead, Version: -1}, &zk.DeleteRequest{Path: rec, Version: -1})
	default: // pass3
		_, err = a.Multi(&zk.SetDataRequest{Path: "/p/ptr", Data: []byte("b-0000000001 12345678"), Version: ptr.Version},
			&zk.DeleteRequest{Path: lead, Version: -1}, &zk.DeleteRequest{Path: rec, Version: -1})
	}
	write = time.Since(start)
	if err != nil {
		return 0, 0, err
	}
	if err := <-done; err != nil {
		return 0, 0, err
	}
	return end.Sub(start), write, nil
}

// electorWatches sets the watches that electors keep beside a pass: the leader's (a) on the pointer, its
// lead node and the roster, and the waiter's (b) on the pointer.
func electorWatches(a, b *zk.Conn, lead string) error {
	if _, _, _, err := a.GetW("/p/ptr"); err != nil {
		return err
	}
	if _, _, _, err := a.ExistsW(lead); err != nil {
		return err
	}
	if _, _, _, err := a.ChildrenW("/p/roster"); err != nil {
		return err
	}
	_, _, _, err := b.GetW("/p/ptr")
	return err
}

// lockWatches returns the setter of the watch by which a leader on
// zk.Lock's protocol would learn that it lost the lock, on its own node,
// and with list the one by which it would follow the waiters, on the
// lock's children: zk.Lock keeps neither, so these rounds price a
// loss-aware leader on zk.Lock's own protocol.
func lockWatches(list bool) func(a, b *zk.Conn, lead string) error {
	return func(a, _ *zk.Conn, lead string) error {
		if _, _, _, err := a.ExistsW(lead); err != nil || !list {
			return err
		}
		_, _, _, err := a.ChildrenW("/p/q")
		return err
	}
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
