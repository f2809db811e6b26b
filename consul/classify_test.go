package consul_test

import (
	"errors"
	"net"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/consul"
)

// Classification of the answers of a fake agent: no Consul needed.

func fakeSession(t *testing.T, routes map[string]http.HandlerFunc) (backends.Session, *fake) {
	t.Helper()
	routes["PUT /v1/session/create"] = sessionCreated
	s, f := newFake(t, routes)
	ss, err := s.NewSession(backendtest.Context(t, 5*time.Second), consul.MinTTL)
	if err != nil {
		t.Fatal(err)
	}
	return ss, f
}

// TestKeepAliveClassification: only "session not found" is an expired
// session; a 500 is an error of unknown outcome (burn 6: a transient 500
// must not be reported as loss).
func TestKeepAliveClassification(t *testing.T) {
	cases := []struct {
		name    string
		answer  http.HandlerFunc
		expired bool
		ok      bool
	}{
		{"renewed", reply(http.StatusOK, []*api.SessionEntry{{ID: "s1", TTL: "10s"}}), false, true},
		{"not found", reply(http.StatusNotFound, "Session id 's1' not found"), true, false},
		{"server error", reply(http.StatusInternalServerError, "rpc error: No cluster leader"), false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ss, _ := fakeSession(t, map[string]http.HandlerFunc{"PUT /v1/session/renew/s1": c.answer})
			err := ss.KeepAlive(backendtest.Context(t, 5*time.Second))
			if (err == nil) != c.ok || errors.Is(err, backends.ErrSessionExpired) != c.expired ||
				errors.Is(err, backends.ErrUnavailable) {
				t.Fatalf("KeepAlive: %v; want ok %v, expired %v, not unavailable", err, c.ok, c.expired)
			}
		})
	}
}

// TestCreateRefusedOnFreeKey: a lock refused on an absent key is a plain
// error while the session lives (lock-delay) and ErrSessionExpired once it
// is gone.
func TestCreateRefusedOnFreeKey(t *testing.T) {
	for _, alive := range []bool{true, false} {
		info := []*api.SessionEntry{}
		if alive {
			info = append(info, &api.SessionEntry{ID: "s1"})
		}
		ss, f := fakeSession(t, map[string]http.HandlerFunc{
			"PUT /v1/txn":             rolledBack(1),
			"GET /v1/session/info/s1": reply(http.StatusOK, info),
		})
		rec, err := ss.Create(backendtest.Context(t, 5*time.Second), "e", []byte("v"))
		if err == nil || rec.Exists() || errors.Is(err, backends.ErrKeyExists) || errors.Is(err, backends.ErrSessionExpired) == alive {
			t.Fatalf("session alive %v: Create = %+v, %v", alive, rec, err)
		}
		if want := []string{"PUT /v1/kv/leasehold/~layout", "PUT /v1/session/create", "PUT /v1/txn", "GET /v1/session/info/s1"}; !slices.Equal(f.requests(), want) {
			t.Fatalf("requests %v, want %v", f.requests(), want)
		}
	}
}

// TestCreateHeldByAnother: a key held by another session is ErrKeyExists
// with the holder's record, at the read's index.
func TestCreateHeldByAnother(t *testing.T) {
	held := &api.KVPair{Key: "leasehold/e", Value: []byte("bob"), Flags: api.LockFlagValue, Session: "s2", ModifyIndex: 42}
	ss, _ := fakeSession(t, map[string]http.HandlerFunc{
		"PUT /v1/txn":            rolledBack(0, 1),
		"GET /v1/kv/leasehold/e": kvReply(held, 42),
	})
	rec, err := ss.Create(backendtest.Context(t, 5*time.Second), "e", []byte("alice"))
	if !errors.Is(err, backends.ErrKeyExists) || rec.Owner != "s2" || rec.Token != 42 || rec.Revision != 42 || string(rec.Value) != "bob" {
		t.Fatalf("Create = %+v, %v; want ErrKeyExists with s2's record", rec, err)
	}
}

// TestCreateServerError: a 500 on the lock transaction has an unknown
// outcome: it is neither unavailable nor a verdict on the key or session.
func TestCreateServerError(t *testing.T) {
	ss, _ := fakeSession(t, map[string]http.HandlerFunc{
		"PUT /v1/txn": reply(http.StatusInternalServerError, "raft apply failed"),
	})
	_, err := ss.Create(backendtest.Context(t, 5*time.Second), "e", nil)
	if err == nil || errors.Is(err, backends.ErrUnavailable) || errors.Is(err, backends.ErrKeyExists) ||
		errors.Is(err, backends.ErrSessionExpired) {
		t.Fatalf("Create on a 500: %v, want an unclassified error", err)
	}
}

// TestDeleteClassification: a failed index check is ErrNotFound; a refused
// delete is not.
func TestDeleteClassification(t *testing.T) {
	for _, c := range []struct {
		failed   int
		notFound bool
	}{{0, true}, {1, false}} {
		ss, _ := fakeSession(t, map[string]http.HandlerFunc{"PUT /v1/txn": rolledBack(c.failed)})
		err := backendtest.Release(backendtest.Context(t, 5*time.Second), ss, "e", 7)
		if err == nil || errors.Is(err, backends.ErrNotFound) != c.notFound {
			t.Fatalf("Delete with op %d failing: %v, want ErrNotFound %v", c.failed, err, c.notFound)
		}
	}
}

// TestAwaitKeyResetsBackwardIndex: when a blocking query's index goes
// backwards, the next query starts again from 0, and the key's queries go on until
// the state changes.
func TestAwaitKeyResetsBackwardIndex(t *testing.T) {
	same := &api.KVPair{Key: "leasehold/e", Value: []byte("a"), Flags: api.LockFlagValue, Session: "s1", ModifyIndex: 100}
	s, f := newFake(t, map[string]http.HandlerFunc{
		"GET /v1/kv/leasehold/e": func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Query().Get("index") {
			case "100":
				kvReply(same, 90)(w, r) // went backwards
			case "": // a WaitIndex of 0 is not sent: a plain read
				kvReply(same, 95)(w, r)
			default:
				kvReply(nil, 120)(w, r)
			}
		},
	})
	known := backends.Record{Election: "e", Value: []byte("a"), Token: 100, Owner: "s1", Revision: 100}
	got, err := consul.AwaitKey(backendtest.Context(t, 5*time.Second), s, known)
	if err != nil || got.Exists() || got.Revision != 120 {
		t.Fatalf("AwaitKey = %+v, %v; want absent at 120", got, err)
	}
	if idx := f.waitIndexes("/v1/kv/leasehold/e"); !slices.Equal(idx, []string{"100", "", "95"}) {
		t.Fatalf("queries at indexes %q, want 100, none (a plain read), 95", idx)
	}
}

// TestRefusedConnectionIsUnavailable: a request that could not connect
// surely did not happen.
func TestRefusedConnectionIsUnavailable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg := api.DefaultConfig()
	cfg.Address, cfg.Scheme = addr, "http"
	c, err := api.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := newStore(t, c, consul.Options{})
	ctx := backendtest.Context(t, 5*time.Second)
	if _, err := s.Get(ctx, "e"); !errors.Is(err, backends.ErrUnavailable) {
		t.Fatalf("Get with the connection refused: %v, want ErrUnavailable", err)
	}
	if _, err := s.NewSession(ctx, consul.MinTTL); !errors.Is(err, backends.ErrUnavailable) {
		t.Fatalf("NewSession with the connection refused: %v, want ErrUnavailable", err)
	}
}
