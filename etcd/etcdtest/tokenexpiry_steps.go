package etcdtest

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/internal/keys"
	"github.com/leasehold/leasehold/lease"
)

// promptly bounds every step of the scenario that waits on an event.
const promptly = 5 * time.Second

// dial returns a client logged in as user, closed when t ends.
func (x *TokenExpiry) dial(t *testing.T, user, password string, lg *zap.Logger) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: x.Endpoints, DialTimeout: 5 * time.Second,
		Username: user, Password: password, Logger: lg})
	if err != nil {
		t.Fatalf("etcdtest: client as %q: %v", user, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// dialToken returns a client that sends tok and never logs in.
func (x *TokenExpiry) dialToken(t *testing.T, tok string) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: x.Endpoints, DialTimeout: 5 * time.Second,
		Token: tok, Logger: zap.NewNop()})
	if err != nil {
		t.Fatalf("etcdtest: client with a token: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// elector returns an elector on a client of its own logged in as user,
// whose client's and elector's logs go to logs.
func (x *TokenExpiry) elector(t *testing.T, user, identity string, logs *logCounter) *lease.LeaseElector {
	return x.electorOn(t, x.dial(t, user, Password(user), zap.New(logs.zapCore())), identity, logs)
}

func (x *TokenExpiry) electorOn(t *testing.T, c *clientv3.Client, identity string, logs *logCounter) *lease.LeaseElector {
	t.Helper()
	s, err := etcd.New(c, etcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := lease.New(s, lease.Options{TTL: etcd.MinTTL, RetryInterval: 2 * promptly, Identity: identity,
		Logger: slog.New(logs.slogHandler())})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = e.Close(ctx)
	})
	return e
}

func (r *expiryRun) campaign(e *lease.LeaseElector, el string) *lease.Leadership {
	r.t.Helper()
	l, err := e.Campaign(r.ctx(30*time.Second), el)
	if err != nil {
		r.t.Fatalf("%s: Campaign(%q): %v", e.Identity(), el, err)
	}
	return l
}

type won struct {
	l   *lease.Leadership
	err error
}

func (r *expiryRun) campaignAsync(e *lease.LeaseElector, el string) <-chan won {
	ch := make(chan won, 1)
	ctx := r.ctx(10 * time.Minute)
	go func() {
		l, err := e.Campaign(ctx, el)
		ch <- won{l, err}
	}()
	return ch
}

// awaitWin returns the waiter's leadership once its campaign returns,
// promptly after the leader resigned.
func (r *expiryRun) awaitWin(ch <-chan won) *lease.Leadership {
	r.t.Helper()
	select {
	case w := <-ch:
		if w.err != nil {
			r.t.Fatalf("waiter's Campaign after %d token lifetimes: %v", r.x.Lifetimes, w.err)
		}
		return w.l
	case <-time.After(promptly):
		r.t.Fatalf("waiter not promoted within %v of the leader's Resign", promptly)
	}
	return nil
}

// awaitInLine returns once identity is among el's candidates behind the
// leader: its campaign found the key taken and took its place in line.
func (r *expiryRun) awaitInLine(el, identity string) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), promptly)
	defer cancel()
	ch, err := r.observer.ObserveCandidates(ctx, el)
	if err != nil {
		r.t.Fatalf("ObserveCandidates: %v", err)
	}
	for cs := range ch {
		for _, c := range cs {
			if c.Identity == identity {
				return
			}
		}
	}
	r.t.Fatalf("%s not in line within %v", identity, promptly)
}

// observe starts an Observe of el on the waiter's elector, after the
// wait outlasted a token, and checks that it first shows identity.
func (r *expiryRun) observe(el, identity string) <-chan lease.LeaderInfo {
	r.t.Helper()
	ch, err := r.waiter.Observe(r.ctx(time.Minute), el)
	if err != nil {
		r.t.Fatalf("waiter's Observe: %v", err)
	}
	r.awaitObserved(ch, identity)
	return ch
}

// awaitObserved returns once ch shows identity leading.
func (r *expiryRun) awaitObserved(ch <-chan lease.LeaderInfo, identity string) {
	r.t.Helper()
	deadline := time.After(promptly)
	for {
		select {
		case info, ok := <-ch:
			if !ok || info.Err != nil {
				r.t.Fatalf("waiter's Observe ended: %v", info.Err)
			}
			if info.Identity == identity {
				return
			}
		case <-deadline:
			r.t.Fatalf("waiter's Observe did not show %s within %v", identity, promptly)
		}
	}
}

// keyLostWithin deletes l's leader key behind its back and checks that
// its watch ends it promptly with ErrKeyLost: its renewals still succeed,
// so only the watch can tell.
func (r *expiryRun) keyLostWithin(l *lease.Leadership) {
	r.t.Helper()
	el := l.Election
	if _, err := r.root.Delete(r.ctx(10*time.Second), keys.Leader(etcd.DefaultPrefix, el)); err != nil {
		r.t.Fatalf("delete %q's leader key: %v", el, err)
	}
	select {
	case <-l.Context().Done():
	case <-time.After(promptly):
		r.t.Fatalf("%q held %v after its key was deleted: its watch is dead", el, promptly)
	}
	if !errors.Is(l.Err(), lease.ErrKeyLost) {
		r.t.Fatalf("%q ended with %v; want ErrKeyLost", el, l.Err())
	}
}
