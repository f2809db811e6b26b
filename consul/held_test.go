package consul_test

import (
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
)

// TestGuardedPutAfterProclaim: when the check at the token fails, a
// guarded write reads the key and, if it holds the token (proclaimed),
// writes once more against the index read. A key that changed again in
// between is a plain error, not ErrNotLeader; a key at another token is
// ErrNotLeader after the read, with no second write.
func TestGuardedPutAfterProclaim(t *testing.T) {
	proclaimed := &api.KVPair{Key: "leasehold/e", Value: []byte("v\n\x00leasehold-token=7"), Flags: api.LockFlagValue,
		Session: "s1", ModifyIndex: 9}
	other := &api.KVPair{Key: "leasehold/e", Value: []byte("v"), Flags: api.LockFlagValue, Session: "s2", ModifyIndex: 9}
	for _, c := range []struct {
		name      string
		key       *api.KVPair
		notLeader bool
		writes    int
	}{
		{"proclaimed, changed in between", proclaimed, false, 2},
		{"another incarnation", other, true, 1},
		{"absent", nil, true, 1},
	} {
		s, f := newFake(t, map[string]http.HandlerFunc{
			"PUT /v1/txn":            rolledBack(0),
			"GET /v1/kv/leasehold/e": kvReply(c.key, 9),
		})
		err := s.GuardedPut(backendtest.Context(t, 5*time.Second), backends.Guarded{Election: "e", Token: 7, Key: "d", Value: []byte("x")})
		writes := len(slices.DeleteFunc(f.requests(), func(r string) bool { return r != "PUT /v1/txn" }))
		if err == nil || errors.Is(err, backends.ErrNotLeader) != c.notLeader || writes != c.writes {
			t.Errorf("%s: %v after %d transactions; want ErrNotLeader %v after %d", c.name, err, writes, c.notLeader, c.writes)
		}
	}
}
