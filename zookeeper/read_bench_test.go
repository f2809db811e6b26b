package zookeeper

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/leasehold/leasehold/integration/stores"
)

// BenchmarkSyncedReadEnsemble measures a Get and a Roster.List (each a
// sync and a read) through each server of a 3-node ensemble in
// containers: one of them is the ensemble's leader, the others forward
// their syncs to it. Run it with
//
//	go test -run '^$' -bench SyncedReadEnsemble -benchtime 300x ./zookeeper/
//
// The figures are meant to be compared with the same benchmark at another
// commit in the same run, not read alone.
func BenchmarkSyncedReadEnsemble(b *testing.B) {
	c := stores.ZooKeeperCluster(b, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.Ready(ctx); err != nil {
		b.Fatal(err)
	}
	prefix := uniqueName("/leasehold-readbench-")
	for i, addr := range c.Addrs() {
		s := newStore(b, []string{addr}, Options{TickTime: stores.ZooKeeperTick, Prefix: prefix})
		ss, err := s.NewSession(ctx, 2*time.Second)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ss.Join(ctx, "bench", []byte("v")); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("node=%d/Get", i), func(b *testing.B) {
			for b.Loop() {
				if _, err := s.Get(ctx, "bench"); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("node=%d/List", i), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := s.List(ctx, "bench"); err != nil {
					b.Fatal(err)
				}
			}
		})
		_ = ss.Close(ctx)
	}
}
