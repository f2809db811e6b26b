package consul_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/consul"
)

// Consul's words for ACL refusals, as a real agent with
// default_policy = "deny" answers them (see the auth suite in
// integration/consul_auth_test.go for the real thing).
const (
	deniedKV      = `Permission denied: token with AccessorID 'a1' lacks permission 'key:write' on "leasehold/e"`
	deniedSession = `Permission denied: token with AccessorID 'a1' lacks permission 'session:write' on "node1"`
	aclNotFound   = "ACL not found"
)

// forbidden answers 403 with Consul's plain-text reason.
func forbidden(why string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(why))
	}
}

// txnDenied answers a transaction as Consul does when its ACLs refuse
// ops: 409, each refused op named with Consul's words.
func txnDenied(ops ...int) http.HandlerFunc {
	var errs api.TxnErrors
	for _, i := range ops {
		errs = append(errs, &api.TxnError{OpIndex: i, What: deniedKV})
	}
	return reply(http.StatusConflict, api.TxnResponse{Errors: errs})
}

// wantDenied fails unless err wraps ErrPermission only, carrying words.
func wantDenied(t *testing.T, what string, err error, words string) {
	t.Helper()
	for _, other := range []error{backends.ErrKeyExists, backends.ErrNotFound, backends.ErrSessionExpired,
		backends.ErrUnavailable, backends.ErrNotLeader, backends.ErrCanceled} {
		if errors.Is(err, other) {
			t.Errorf("%s: %v also wraps %v", what, err, other)
		}
	}
	if !errors.Is(err, backends.ErrPermission) || !strings.Contains(err.Error(), words) {
		t.Errorf("%s: %v, want ErrPermission with Consul's words %q", what, err, words)
	}
}

// TestCreateDeniedIsPermanent is bug 3 of issue 12: a token with read-only
// KV rights gets a 409 whose op errors say "Permission denied". It was
// read as "the key changed while being acquired; try again", and retried
// forever. It is ErrPermission, after one transaction and no read.
func TestCreateDeniedIsPermanent(t *testing.T) {
	for _, ops := range [][]int{{0, 1}, {1}} {
		ss, f := fakeSession(t, map[string]http.HandlerFunc{"PUT /v1/txn": txnDenied(ops...)})
		_, err := ss.Create(backendtest.Context(t, 5*time.Second), "e", []byte("v"))
		wantDenied(t, "Create", err, "lacks permission 'key:write'")
		if want := []string{"PUT /v1/kv/leasehold/~layout", "PUT /v1/session/create", "PUT /v1/txn"}; !slices.Equal(f.requests(), want) {
			t.Errorf("ops %v denied: requests %v, want %v", ops, f.requests(), want)
		}
	}
}

// TestDeniedCalls: every call Consul's ACLs refuse fails with
// ErrPermission and Consul's words, whether the refusal is a 403 or a
// transaction's 409.
func TestDeniedCalls(t *testing.T) {
	ctx := backendtest.Context(t, 5*time.Second)
	t.Run("NewSession", func(t *testing.T) {
		s, _ := newFake(t, map[string]http.HandlerFunc{"PUT /v1/session/create": forbidden(deniedSession)})
		_, err := s.NewSession(ctx, consul.MinTTL)
		wantDenied(t, "NewSession", err, "lacks permission 'session:write'")
	})
	t.Run("KeepAlive", func(t *testing.T) {
		ss, _ := fakeSession(t, map[string]http.HandlerFunc{"PUT /v1/session/renew/s1": forbidden(deniedSession)})
		wantDenied(t, "KeepAlive", ss.KeepAlive(ctx), "session:write")
	})
	t.Run("Delete", func(t *testing.T) {
		ss, _ := fakeSession(t, map[string]http.HandlerFunc{"PUT /v1/txn": txnDenied(1)})
		wantDenied(t, "Delete", backendtest.Release(ctx, ss, "e", 7), "key:write")
	})
	t.Run("Get", func(t *testing.T) {
		s, _ := newFake(t, map[string]http.HandlerFunc{"GET /v1/kv/leasehold/e": forbidden(aclNotFound)})
		_, err := s.Get(ctx, "e")
		wantDenied(t, "Get", err, aclNotFound)
	})
	t.Run("WatchKey", func(t *testing.T) {
		s, _ := newFake(t, map[string]http.HandlerFunc{"GET /v1/kv/leasehold/": forbidden(aclNotFound)})
		ws, ch := watch(t, s)
		ws.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: backends.Record{Election: "e", Revision: 5}})
		wantDenied(t, "WatchKey answer", ch.next(t).Err, aclNotFound)
	})
	t.Run("Create with an unknown token", func(t *testing.T) {
		ss, _ := fakeSession(t, map[string]http.HandlerFunc{"PUT /v1/txn": forbidden(aclNotFound)})
		_, err := ss.Create(ctx, "e", nil)
		wantDenied(t, "Create", err, aclNotFound)
	})
	t.Run("GuardedPut", func(t *testing.T) {
		s, _ := newFake(t, map[string]http.HandlerFunc{"PUT /v1/txn": txnDenied(1)})
		wantDenied(t, "GuardedPut", s.GuardedPut(ctx, backends.Guarded{Election: "e", Token: 7, Key: "d", Value: []byte("x")}), "key:write")
	})
}

// TestLockDelayIsNotDenied: a rollback for another reason keeps its
// meaning; only ACL words make ErrPermission.
func TestLockDelayIsNotDenied(t *testing.T) {
	ss, _ := fakeSession(t, map[string]http.HandlerFunc{
		"PUT /v1/txn":             rolledBack(1),
		"GET /v1/session/info/s1": reply(http.StatusOK, []*api.SessionEntry{{ID: "s1"}}),
	})
	_, err := ss.Create(context.Background(), "e", nil)
	if err == nil || errors.Is(err, backends.ErrPermission) {
		t.Fatalf("Create refused by lock-delay: %v, want a plain error", err)
	}
}

// TestTxnTooManyRequests: a transaction Consul refuses with 429 surely did
// not happen: unavailable, as for every other call (api.Txn would have
// dropped the code).
func TestTxnTooManyRequests(t *testing.T) {
	ss, _ := fakeSession(t, map[string]http.HandlerFunc{"PUT /v1/txn": reply(http.StatusTooManyRequests, "rate limit exceeded")})
	if err := backendtest.Release(context.Background(), ss, "e", 7); !errors.Is(err, backends.ErrUnavailable) {
		t.Fatalf("Delete answered 429: %v, want ErrUnavailable", err)
	}
}
