package zookeeper

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/zookeeper/internal/names"
)

// driver is what the Store New returns holds for package lease.
type driver interface {
	backends.Driver
	io.Closer
}

// store is the driver on ZooKeeper.
type store struct {
	servers []string
	opts    Options
	warned  sync.Once // warnOpenPrefix ran
	layout  *backends.Layout
	sets    atomic.Pointer[[]*watchSet] // open WatchSets, copied on write under mu
	streams atomic.Pointer[[]*stream]   // their open streams, which take notifications; as sets
	ptrs    pointers                    // the pointer nodes last seen (see pointers)
	own     ownEntries                  // the queue entries this Store's sessions made

	mu      sync.Mutex
	closed  bool
	read    *link              // the read link, nil while closed (see reader.go)
	reading int                // calls using the read link
	serving []*link            // session links fit to read on, oldest first
	links   map[*link]struct{} // session links not yet closed
	wg      sync.WaitGroup     // goroutines started by spawn
}

var _ driver = (*store)(nil)

// New returns a Store on the ensemble whose client addresses ("host:port")
// are servers: pass it to lease.New. It fails if servers is empty or a
// host cannot be resolved, and names the option if opts is invalid. It
// starts connecting in the background and does not wait for a server: an
// unreachable ensemble shows up as errors from the calls. The Store owns
// the connections it opens: one per session, and one of its own for reads
// while no session's connection can serve them. Close it when done: its
// Close ends every session still open, deleting their nodes if a server
// can be reached, and waits for the goroutines of the Store and of
// go-zookeeper, at most a few seconds when a server does not answer.
// Calls after Close fail.
func New(servers []string, opts Options) (*backends.Store, error) {
	s, err := open(servers, opts)
	if err != nil {
		return nil, err
	}
	return backends.NewStore(s), nil
}

// open is New's driver: the store New wraps.
func open(servers []string, opts Options) (*store, error) {
	if len(servers) == 0 {
		return nil, errors.New("zookeeper: no servers: pass the ensemble's client addresses, e.g. 127.0.0.1:2181")
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	s := &store{servers: append([]string(nil), servers...), opts: opts, links: make(map[*link]struct{})}
	s.sets.Store(new([]*watchSet))
	s.streams.Store(new([]*stream))
	s.layout = newLayout(s)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.dialRead(); err != nil {
		return nil, fmt.Errorf("zookeeper: %w", err)
	}
	return s, nil
}

// Capabilities reports the name "zookeeper", the bounds from Options, TTL
// between MinTTL and MaxTTL in whole milliseconds and values up to
// MaxValueSize bytes, and that an End with a target passes the key (the
// pointer moves to the target's node, see end.go) and that waits answer
// committed states: every answer is a pointer node's state as of its
// mzxid, the Revision.
func (s *store) Capabilities() backends.Capabilities {
	return backends.Capabilities{Name: "zookeeper", Limits: backends.Limits{MinTTL: s.opts.MinTTL, MaxTTL: s.opts.MaxTTL,
		TTLGranularity: time.Millisecond, MaxValueSize: MaxValueSize}, Passes: true, CommittedWaits: true}
}

// leaderPath returns the path of an election's pointer node: Prefix + "/" + its node
// name, in which '/' and the escape character '%' are escaped so that
// every election is a child of Prefix and no two nest ("a/b" is node
// Prefix + "/a%2Fb"; see the package doc, Keys and tokens).
func (s *store) leaderPath(election string) string { return s.opts.Prefix + "/" + names.Node(election) }

// named fails, with an error that starts with what, if election is
// empty. Every other name gives valid paths (leaderPath, queuePath,
// rosterPath): its node name escapes every byte a path may not hold.
func named(what, election string) error {
	if election == "" {
		return fmt.Errorf("%s: %w", what, errNoName)
	}
	return nil
}

// errNoName: an election name is empty.
var errNoName = errors.New("election name is empty")

// Close, which the Store's Close calls, closes every connection the
// driver opened, which ends every session still open (and deletes their
// nodes, if the servers can be reached), and waits for its goroutines and
// go-zookeeper's. go-zookeeper waits up to a second for the answer to each
// closeSession, so Close can take that long if a server does not answer;
// it waits at most 5 s for a connection's goroutines, which go-zookeeper
// can leave blocked. It closes every WatchSet still open. Calls after
// Close fail. Close is idempotent, and returns nil.
func (s *store) Close() error {
	s.close()
	return nil
}

// close is Store.Close.
func (s *store) close() {
	s.mu.Lock()
	already := s.closed
	s.closed = true
	var links []*link
	if s.read != nil {
		links = append(links, s.read)
	}
	for l := range s.links {
		links = append(links, l)
	}
	s.mu.Unlock()
	if already {
		s.wg.Wait()
		return
	}
	for _, w := range *s.sets.Load() {
		_ = w.Close()
	}
	var wg sync.WaitGroup
	for _, l := range links {
		wg.Go(l.close)
	}
	wg.Wait()
	s.wg.Wait()
}

// addLink registers a session link for Close; it fails once closed.
func (s *store) addLink(l *link) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.links[l] = struct{}{}
	return true
}

// closeLink closes a session link and forgets it.
func (s *store) closeLink(l *link) {
	s.unserve(l)
	l.close()
	s.mu.Lock()
	delete(s.links, l)
	s.mu.Unlock()
}
