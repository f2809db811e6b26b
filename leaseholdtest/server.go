package leaseholdtest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/harness"
	"github.com/leasehold/leasehold/lease"
)

// callTimeout bounds each call a helper makes to the store.
const callTimeout = 10 * time.Second

// Server is a store server running for one test. Its methods are safe for
// concurrent use; each fails the test it is given when the store does not
// answer.
type Server struct {
	// Kind is "etcd", "zookeeper" or "consul".
	Kind string
	// Endpoints are the servers' client addresses: etcd client URLs
	// (http://127.0.0.1:port), ZooKeeper and Consul host:port.
	Endpoints []string
	// Store is a Store on a connection of its own, ready for lease.New,
	// closed when the test ends. Electors that share it share its link:
	// for an elector a test will cut off, use Connect.
	Store *backends.Store

	h storeHarness

	once sync.Once
	obs  *lease.LeaseElector // reads elections for Leader
	err  error
}

// storeHarness is what a Server needs of the project's per-store harness.
type storeHarness interface {
	Connect(t testing.TB) (*backends.Store, *harness.Link)
	ExpireSession(ctx context.Context, id string) error
}

// newServer wraps h, whose Stores reach endpoints, into a Server for t.
func newServer(t testing.TB, kind string, endpoints []string, h storeHarness) *Server {
	t.Helper()
	s := &Server{Kind: kind, Endpoints: endpoints, h: h}
	s.Store, _ = h.Connect(t)
	t.Cleanup(func() {
		if s.obs != nil {
			_ = s.obs.Close(context.Background())
		}
	})
	return s
}

// Link is one client's connection to a Server, which a test can cut and
// heal.
type Link struct {
	// Store is a Store whose every connection goes through this link,
	// closed when the test ends. Give it to one lease.New.
	Store *backends.Store
	link  *harness.Link
}

// Connect returns a new Link to the server.
func (s *Server) Connect(t testing.TB) *Link {
	t.Helper()
	st, l := s.h.Connect(t)
	return &Link{Store: st, link: l}
}

// Cut closes the link's connections abruptly and refuses new ones until
// Heal, as a crash of the client's host or a network cut would: the
// Store's calls fail, and the store keeps its sessions until their TTL
// runs out. An elector on the Store stops leading at its own deadline,
// before the store can give the key to another.
func (l *Link) Cut() { l.link.Sever() }

// Heal undoes Cut. The store's client reconnects by itself, within about
// a second.
func (l *Link) Heal() { l.link.Heal() }

// ExpireSession makes the store end the session with the given ID now, as
// if its TTL had run out: the keys bound to it go (a leader's key with
// them), and the next candidate can take the key at once. etcd: the lease
// is revoked; ZooKeeper: the session is closed from a second connection
// (it must have been opened through this Server's Store or a Link of it);
// Consul: the session is destroyed. Pass LeaseElector.SessionID or the
// Session of a LeaderInfo. A session that is already gone is not an error
// on ZooKeeper; on etcd and Consul it fails the test.
func (s *Server) ExpireSession(t testing.TB, id string) {
	t.Helper()
	if id == "" {
		t.Fatal("leaseholdtest: ExpireSession: empty session ID (the elector has no session)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	if err := s.h.ExpireSession(ctx, id); err != nil {
		t.Fatalf("leaseholdtest: expire session %s: %v", id, err)
	}
}

// Leader reads the election's current leader with one linearizable read:
// its identity, fencing token and session. With no leader it returns a
// LeaderInfo whose HasLeader is false.
func (s *Server) Leader(t testing.TB, election string) lease.LeaderInfo {
	t.Helper()
	s.once.Do(func() { // an observer: it never opens a session, but its TTL must be valid
		lim := s.Store.Limits()
		ttl := min(max(lease.DefaultTTL, lim.MinTTL), lim.MaxTTL)
		s.obs, s.err = lease.New(s.Store, lease.Options{TTL: ttl})
	})
	if s.err != nil {
		t.Fatalf("leaseholdtest: %v", s.err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	info, err := s.obs.Leader(ctx, election)
	if errors.Is(err, lease.ErrNoLeader) {
		return lease.LeaderInfo{Election: election}
	}
	if err != nil {
		t.Fatalf("leaseholdtest: leader of %q: %v", election, err)
	}
	return info
}
