package leaseholdtest_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/leaseholdtest"
)

// elector returns an elector on link's Store with a 2 s TTL, closed within
// a second when t ends.
func elector(t *testing.T, link *leaseholdtest.Link, name string) *lease.LeaseElector {
	t.Helper()
	e, err := lease.New(link.Store, lease.Options{TTL: 2 * time.Second, Identity: name})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = e.Close(ctx)
	})
	return e
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestCutEndsLeadershipAndHealRestores: a cut link ends its elector's
// leadership by the elector's own deadline; after Heal it leads again,
// with a higher token.
func TestCutEndsLeadershipAndHealRestores(t *testing.T) {
	srv := leaseholdtest.Etcd(t)
	link := srv.Connect(t)
	e := elector(t, link, "a")
	l, err := e.Campaign(ctxFor(t, 10*time.Second), "cut")
	if err != nil {
		t.Fatal(err)
	}
	link.Cut()
	select {
	case <-l.Context().Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the leadership outlived a cut link by 5 s (TTL 2 s)")
	}
	link.Heal()
	l2, err := e.Campaign(ctxFor(t, 15*time.Second), "cut")
	if err != nil {
		t.Fatalf("campaign after Heal: %v", err)
	}
	if l2.Token <= l.Token {
		t.Fatalf("token %d after heal, not above %d", l2.Token, l.Token)
	}
}

// TestLeaderAndExpire: Leader reads the holder; ExpireSession frees the
// key at once and the holder hears its session is gone.
func TestLeaderAndExpire(t *testing.T) {
	srv := leaseholdtest.Etcd(t)
	if got := srv.Leader(t, "x"); got.HasLeader() {
		t.Fatalf("leader of a fresh election: %+v", got)
	}
	e := elector(t, srv.Connect(t), "a")
	l, err := e.Campaign(ctxFor(t, 10*time.Second), "x")
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.Leader(t, "x"); got.Identity != "a" || got.Token != l.Token || got.Session != e.SessionID() {
		t.Fatalf("Leader %+v, want a@%d in session %s", got, l.Token, e.SessionID())
	}
	srv.ExpireSession(t, e.SessionID())
	select {
	case <-l.Context().Done():
	case <-time.After(time.Second):
		t.Fatal("the holder did not hear within 1 s that its session was expired")
	}
	if got := srv.Leader(t, "x"); got.HasLeader() && got.Token == l.Token {
		t.Fatalf("the expired session still holds the key: %+v", got)
	}
	if errors.Is(l.Err(), lease.ErrResigned) {
		t.Fatalf("the leadership ended as resigned: %v", l.Err())
	}
}

// projectEnv is this project's settings for container tests, beside the
// repository on its machines (a user's has none): there the default route
// is not loopback, and testcontainers-go would reach the containers through
// the gateway without TESTCONTAINERS_HOST_OVERRIDE.
const projectEnv = "../../shared/testcontainers.env"

// requireProjectEnv stops a container test on this project's machines
// unless projectEnv is applied (the kit itself asks for no variable).
func requireProjectEnv(t *testing.T) {
	if _, err := os.Stat(projectEnv); err != nil || os.Getenv("TESTCONTAINERS_HOST_OVERRIDE") != "" {
		return
	}
	msg := "TESTCONTAINERS_HOST_OVERRIDE is unset: source ../shared/testcontainers.env (test traffic must stay on loopback)"
	if strings.EqualFold(os.Getenv("CI"), "true") {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// TestContainer starts one server of each kind in a container and runs an
// election on it, a session expiry included.
func TestContainer(t *testing.T) {
	requireProjectEnv(t)
	for _, kind := range []string{"etcd", "zookeeper", "consul"} {
		t.Run(kind, func(t *testing.T) {
			srv := leaseholdtest.Container(t, kind, leaseholdtest.ContainerOptions{})
			ttl := 2 * time.Second
			if kind == "consul" {
				ttl = 10 * time.Second
			}
			e, err := lease.New(srv.Connect(t).Store, lease.Options{TTL: ttl, Identity: "a"})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close(ctxFor(t, 5*time.Second))
			l, err := e.Campaign(ctxFor(t, 30*time.Second), "c")
			if err != nil {
				t.Fatal(err)
			}
			if got := srv.Leader(t, "c"); got.Token != l.Token {
				t.Fatalf("Leader %+v, want token %d", got, l.Token)
			}
			srv.ExpireSession(t, e.SessionID())
			select {
			case <-l.Context().Done():
			case <-time.After(5 * time.Second):
				t.Fatal("the holder did not hear within 5 s that its session was expired")
			}
		})
	}
}
