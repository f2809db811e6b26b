package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/bench/internal/env"
	"github.com/leasehold/leasehold/bench/internal/stat"
)

// TestConsulWake measures what a Consul blocking query costs a waiter as
// the number of watchers grows: BENCH_WAKE changes of one key, each
// awaited by one watcher while the others watch too, once with every
// watcher on that key alone (as api.Lock's waiters watch their lock key)
// and once with every watcher listing a prefix that holds the key and 12
// others of 200 bytes (as the consul Store's shared query lists its
// prefix, with the candidates' records and queue entries). It reports the time from
// the write's start to the watcher's answer. It measures nothing the
// benchmark reports.
func TestConsulWake(t *testing.T) {
	k, _ := strconv.Atoi(os.Getenv("BENCH_WAKE"))
	if k <= 0 {
		t.Skip("BENCH_WAKE (changes per series) not set")
	}
	st := startStore(t, env.Consul)
	cfg := api.DefaultConfig()
	cfg.Address = st.Endpoints[0]
	client := func() *api.Client {
		c, err := api.NewClient(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	kv := client().KV()
	for i := range 12 {
		if _, err := kv.Put(&api.KVPair{Key: fmt.Sprintf("w/~roster/e/%02d", i), Value: []byte(strings.Repeat("v", 200))}, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, watchers := range []int{3, 6} {
		for _, prefix := range []bool{false, true} {
			d, err := wakeSeries(kv, client, watchers, prefix, k)
			if err != nil {
				t.Fatal(err)
			}
			s := stat.Summarize(d)
			t.Logf("%d watchers of the %s: p50 %.2f ms, p99 %.2f ms", watchers,
				map[bool]string{false: "key", true: "prefix"}[prefix], s.P50, s.P99)
		}
	}
}

// wakeSeries changes the key w/k k times, with n watchers of it (or of
// the prefix w/), and returns how long after each write's start the
// first watcher's blocking query answered.
func wakeSeries(kv *api.KV, client func() *api.Client, n int, prefix bool, k int) ([]time.Duration, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch := func(c *api.Client, index uint64) (uint64, error) {
		q := (&api.QueryOptions{WaitIndex: index}).WithContext(ctx)
		var meta *api.QueryMeta
		var err error
		if prefix {
			_, meta, err = c.KV().List("w/", q)
		} else {
			_, meta, err = c.KV().Get("w/k", q)
		}
		if err != nil {
			return 0, err
		}
		return meta.LastIndex, nil
	}
	for range n - 1 {
		c := client()
		go func() {
			var index uint64
			for ctx.Err() == nil {
				if i, err := watch(c, index); err == nil {
					index = i
				}
			}
		}()
	}
	c := client()
	var d []time.Duration
	for i := range k {
		index, err := watch(c, 0)
		if err != nil {
			return nil, err
		}
		woke := make(chan time.Time, 1)
		go func() {
			for at := index; ctx.Err() == nil; {
				if i, err := watch(c, at); err == nil {
					if i > index {
						woke <- time.Now()
						return
					}
					at = i
				}
			}
		}()
		time.Sleep(3 * time.Millisecond) // pace: the watcher's query parks at the server first
		t0 := time.Now()
		if i%2 == 0 {
			_, err = kv.Put(&api.KVPair{Key: "w/k", Value: []byte("v")}, nil)
		} else {
			_, err = kv.Delete("w/k", nil)
		}
		if err != nil {
			return nil, err
		}
		d = append(d, (<-woke).Sub(t0))
	}
	return d, nil
}
