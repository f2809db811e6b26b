package integration

import (
	"context"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/integration/stores"
	"github.com/leasehold/leasehold/internal/driver"
)

// TestConsulWatchAfterIsolatedServer: a WatchSet on a Consul server that
// was cut off from its peers while the set's blocking query waited on it
// must, once the cut heals, answer a change within a bound, as a waiter
// in line needs it to. The fault soak once saw a member's watch stay
// silent for minutes after its node healed: the query forwarded to the
// old leader hung on a connection the cut had broken, and nothing ended
// it before Consul's wait time.
func TestConsulWatchAfterIsolatedServer(t *testing.T) {
	stores.RequireIsolation(t)
	for _, which := range []string{"follower", "leader"} {
		t.Run(which, func(t *testing.T) { testWatchAfterIsolated(t, which == "leader") })
	}
}

// testWatchAfterIsolated runs TestConsulWatchAfterIsolatedServer with
// the waiter's server the cluster's leader or a follower.
func testWatchAfterIsolated(t *testing.T, leader bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c := stores.ConsulCluster(t, 3)
	lead, err := c.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f := (lead + 1) % 3
	if leader {
		f = lead
	}
	holder, err := consul.New(consulClient(t, c.Addrs()[(f+1)%3]), consul.Options{})
	if err != nil {
		t.Fatal(err)
	}
	waiter, err := consul.New(consulClient(t, c.Addrs()[f]), consul.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const ttl = 10 * time.Second
	hs, err := driver.Of(holder).NewSession(ctx, ttl)
	if err != nil {
		t.Fatal(err)
	}
	el := "isolate-watch"
	rec, err := hs.Create(ctx, el, []byte("holder"))
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan backends.Change, 16)
	set := driver.Of(waiter).Watch(func(c backends.Change) { ch <- c })
	defer set.Close()
	tag := uint64(0)
	ask := func() {
		tag++
		set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: tag, Known: rec})
	}
	ask()
	if err := c.IsolatePeers(ctx, f); err != nil {
		t.Fatal(err)
	}
	cut := time.Now()
	healed := time.After(3 * ttl / 2)
	for waiting := true; waiting; {
		select { // the set may end the request while cut off: ask again, as an elector does
		case got := <-ch:
			t.Logf("+%v: answer %+v", time.Since(cut).Round(time.Millisecond), got)
			if got.Err == nil {
				t.Fatalf("answer while the key is unchanged: %+v", got)
			}
			ask()
		case <-healed:
			waiting = false
		}
	}
	if err := c.HealPeers(ctx, f); err != nil {
		t.Fatal(err)
	}
	if err := c.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	// The holder's session may have lapsed during the cut; either way the
	// key now goes, and the waiter must hear of it.
	_ = hs.Close(ctx)
	freed := time.Now()
	const bound = 15 * time.Second
	timeout := time.After(bound)
	for {
		select {
		case got := <-ch:
			t.Logf("+%v after the key went: answer %+v", time.Since(freed).Round(time.Millisecond), got)
			if got.Err == nil {
				return
			}
			ask()
		case <-timeout:
			t.Fatalf("no answer within %v of the key going, %v after the server's cut healed", bound, time.Since(cut)-3*ttl/2)
		}
	}
}
