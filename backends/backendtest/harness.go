// Package backendtest is the conformance suite for adapters, the
// backends.Driver inside the *backends.Store a Harness returns.
// An adapter's test calls RunConformanceTests with a Harness that connects
// to a real server of its store; package lease's elector suite
// (lease/leasetest) takes the same Harness.
package backendtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/driver"
)

// Harness connects the suites to one running store. Its methods may be
// called from several tests at once.
type Harness interface {
	// NewStore returns a Store on a connection of its own and a function
	// that severs that connection abruptly, as a crash or a network cut
	// would: afterwards the Store's calls fail and its sessions are no
	// longer renewed. The harness closes the connection when t ends.
	NewStore(t testing.TB) (store *backends.Store, sever func())

	// ExpireSession makes the store end the session with the given ID
	// now, as if its TTL had run out, deleting the keys bound to it.
	ExpireSession(ctx context.Context, id string) error
}

// Connector is an optional interface of a Harness whose Stores reach the
// store through a Link of their own: Connect returns a Store like
// NewStore's and its Link, so that a suite can slow it (Link.SetLatency)
// as well as sever it.
type Connector interface {
	Connect(t testing.TB) (*backends.Store, *Link)
}

// ExpiryGracer is an optional interface of a Harness whose store may keep
// a silent session's keys for a while after its TTL: Consul invalidates a
// session anywhere between TTL and 2×TTL, etcd checks expiry every 500 ms.
// ExpiryGrace returns that extra time for a session of the given TTL. The
// suites allow TTL + ExpiryGrace (or TTL + 1 s without it) for a crashed
// holder's key to go.
type ExpiryGracer interface {
	ExpiryGrace(ttl time.Duration) time.Duration
}

// Layouter is an optional interface of a Harness that reaches the layout
// marker (backends.Layout) of a prefix apart from every other test's,
// through the store's own client. name is one segment of [a-z0-9-],
// unique to the test; the harness makes a prefix of its store's form of
// it.
type Layouter interface {
	// StoreAt returns a Store like NewStore's whose prefix is name's.
	StoreAt(t testing.TB, name string) *backends.Store
	// LayoutAt returns the value of name's prefix's layout marker, and
	// whether it exists.
	LayoutAt(t testing.TB, name string) (string, bool)
	// SetLayoutAt writes value into name's prefix's layout marker, as
	// another version of leasehold would.
	SetLayoutAt(t testing.TB, name, value string)
}

// ExpiryBound returns how long after the last renewal the suites allow a
// store to take to delete a silent session's keys.
func ExpiryBound(h Harness, ttl time.Duration) time.Duration {
	if g, ok := h.(ExpiryGracer); ok {
		return ttl + g.ExpiryGrace(ttl)
	}
	return ttl + time.Second
}

// Election returns an election name unique to t.
func Election(t testing.TB) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-') {
			return r
		}
		return '_'
	}, t.Name())
	if len(name) > 150 {
		name = name[:150]
	}
	return "test/" + name + "-" + hex.EncodeToString(b)
}

// Context returns a context for one test step, cancelled when t ends.
func Context(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func newSession(t *testing.T, s backends.Driver) backends.Session {
	t.Helper()
	ss, err := s.NewSession(Context(t, 10*time.Second), ttl(s))
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	t.Cleanup(func() { _ = ss.Close(context.Background()) })
	return ss
}

// ttl is the shortest TTL the store grants, at least 2 s.
func ttl(s backends.Driver) time.Duration {
	return max(s.Capabilities().MinTTL, 2*time.Second)
}

// Release ends ss's term on election's key at token plainly (Session.End
// with no target), for tests that only need the key gone.
func Release(ctx context.Context, ss backends.Session, election string, token uint64) error {
	_, err := ss.End(ctx, backends.End{Election: election, Token: token})
	return err
}

// newDriver returns the Driver of a Store from h.NewStore, and its sever.
func newDriver(t testing.TB, h Harness) (backends.Driver, func()) {
	s, sever := h.NewStore(t)
	return driver.Of(s), sever
}
