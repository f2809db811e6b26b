package consul

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
)

// NewSession creates a Consul session with the given TTL, the "delete"
// behavior, no health checks and the store's lock-delay, on
// Options.SessionNode if set (registering it first), after the Store's
// first claim of the layout marker. It fails without I/O if ttl is
// outside MinTTL to MaxTTL.
func (s *store) NewSession(ctx context.Context, ttl time.Duration) (backends.Session, error) {
	if ttl < MinTTL || ttl > MaxTTL {
		return nil, fmt.Errorf("consul: session TTL %v is out of Consul's range %v to %v", ttl, MinTTL, MaxTTL)
	}
	if err := s.layout.Claim(ctx); err != nil {
		return nil, err
	}
	entry := &api.SessionEntry{Name: SessionName, TTL: ttl.String(),
		Behavior: api.SessionBehaviorDelete, LockDelay: s.lockDelay, Node: s.node}
	if err := s.registerNode(ctx); err != nil {
		return nil, err
	}
	id, _, err := s.c.Session().CreateNoChecks(entry, writeOpts(ctx))
	if err != nil {
		return nil, s.classify("create session", "", ctx, err)
	}
	return &session{s: s, id: id, ttl: ttl, held: make(map[string]heldKey)}, nil
}

type session struct {
	s   *store
	id  string
	ttl time.Duration

	mu   sync.Mutex
	held map[string]heldKey // the keys Create took
}

// heldKey is a key the session took: its token and its ModifyIndex, which
// a Proclaim moves on.
type heldKey struct{ token, index uint64 }

func (ss *session) ID() string         { return ss.id }
func (ss *session) TTL() time.Duration { return ss.ttl }

// KeepAlive renews the session once. Consul answers an unknown session
// with 404 (or, in a race, 200 with no entry) and a token without
// session:write with 403. It goes through the raw API because
// api.Session.Renew drops the body of an error answer, Consul's words.
func (ss *session) KeepAlive(ctx context.Context) error {
	var entries []*api.SessionEntry
	_, err := ss.s.c.Raw().Write("/v1/session/renew/"+ss.id, nil, &entries, writeOpts(ctx))
	var st api.StatusError
	switch {
	case errors.As(err, &st) && st.Code == http.StatusNotFound, err == nil && len(entries) == 0:
		return fmt.Errorf("consul: renew session %s: %w", ss.id, backends.ErrSessionExpired)
	case err != nil:
		return ss.s.classify("renew session "+ss.id, "", ctx, err)
	}
	return nil
}

// Close deletes the keys the session took (each only if it still holds
// the token it was taken with), then destroys the session, which deletes
// any key left. Deleting first keeps the lock-delay unarmed: Consul arms
// it only for keys a session holds when it is invalidated. Destroying an
// unknown session succeeds, so closing an expired session returns nil.
func (ss *session) Close(ctx context.Context) error {
	ss.deleteHeld(ctx)
	if _, err := ss.s.c.Session().Destroy(ss.id, writeOpts(ctx)); err != nil {
		return ss.s.classify("destroy session "+ss.id, "", ctx, err)
	}
	return nil
}

// hold records that the session holds key with token, at ModifyIndex
// index.
func (ss *session) hold(key string, token, index uint64) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.held[key] = heldKey{token, index}
}

// index returns the ModifyIndex key last had, by this session's own
// write, with token: its acquisition's or its last Proclaim's. It is
// token if the session holds no such key (heldTxn then reads the key).
func (ss *session) index(key string, token uint64) uint64 {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if h, ok := ss.held[key]; ok && h.token == token && h.index != 0 {
		return h.index
	}
	return token
}

// forget drops key from the held set if it was taken with token.
func (ss *session) forget(key string, token uint64) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.held[key].token == token {
		delete(ss.held, key)
	}
}

// takeHeld empties the set of held keys and returns what it held.
func (ss *session) takeHeld() map[string]heldKey {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	held := ss.held
	ss.held = make(map[string]heldKey)
	return held
}

func writeOpts(ctx context.Context) *api.WriteOptions {
	return (&api.WriteOptions{}).WithContext(ctx)
}

// registerNode puts Options.SessionNode in the catalog, without checks,
// unless it is there already (SkipNodeUpdate leaves an existing node as it
// is). It runs until it succeeds once.
func (s *store) registerNode(ctx context.Context) error {
	if s.node == "" || s.nodeReady.Load() {
		return nil
	}
	reg := &api.CatalogRegistration{Node: s.node, Address: "127.0.0.1", SkipNodeUpdate: true,
		NodeMeta: map[string]string{"registered-by": "leasehold"}}
	if _, err := s.c.Catalog().Register(reg, writeOpts(ctx)); err != nil {
		return s.classify("register session node "+s.node, "", ctx, err)
	}
	s.nodeReady.Store(true)
	return nil
}
