package lease

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/internal/driver"
	"github.com/leasehold/leasehold/internal/keys"
)

// TestChurnLeavesNoKey: on embedded etcd, four electors campaign for six
// elections in queue mode, cancel their campaigns at random moments
// (before, during and after a win), and their leaders resign (passing the
// key to the next in line) or hand over to a named candidate, whose
// campaign may be ending just then. Once every campaign has ended and
// every leadership was resigned, no key may stay: a key bound to a live
// session with no campaign would block every later candidate until that
// session ends (a shard group's member held a shard's key so for 70 s in
// a soak on etcd).
//
// Two of the electors wait in the queue, two on the key. In the second
// run the store behaves as under a partition: one reply in ten of the
// electors' writes (Create, End, Enqueue, Join, Leave) is lost after the
// write was made, so the call fails with an unknown outcome; one renewal
// in two fails, so sessions are lost and made again; and one create,
// enqueue, join and end (a pass or a delete) in twenty fail at once and
// land up to 300ms later,
// when their campaign may have ended (a request that reached a node cut
// off from its peers, applied when the cut heals). No queue entry or
// candidate record may stay either. Without the elector's look for what
// such writes made (core: late.go), keys stayed in 2 runs of 5, entries
// in 3 of 3, and records in 3 of 3.
func TestChurnLeavesNoKey(t *testing.T) {
	for _, lossy := range []bool{false, true} {
		t.Run(fmt.Sprintf("lost-replies=%t", lossy), func(t *testing.T) { testChurn(t, lossy) })
	}
}

func testChurn(t *testing.T, lossy bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	store, cli := embeddedStoreClient(t)
	var late sync.WaitGroup
	if lossy {
		var seed atomic.Uint64
		store = backends.NewStore(wrappedSessions{driver.Of(store), func(s backends.Session) backends.Session {
			return &lossySession{Session: s, rng: rand.New(rand.NewPCG(seed.Add(1), 11)), late: &late}
		}})
	}
	ids := []string{"a", "b", "c", "d"}
	els := make([]*LeaseElector, len(ids))
	for i, id := range ids {
		ttl := 10 * time.Second
		if lossy {
			ttl = 2 * time.Second // renewals fail: sessions are lost and made again
		}
		wait := WaitQueue
		if i%2 == 1 {
			wait = WaitKey
		}
		e, err := New(store, Options{TTL: ttl, Identity: id, RetryInterval: 50 * time.Millisecond, Wait: wait})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Close(context.Background()) })
		els[i] = e
	}
	const elections = 6
	var st churnStats
	var wg sync.WaitGroup
	for i, e := range els {
		wg.Add(1)
		go func() {
			defer wg.Done()
			churn(ctx, e, ids, uint64(i+1), elections, 4*time.Second, &st)
		}()
	}
	wg.Wait()
	late.Wait() // every late create has landed, or found the key taken
	t.Logf("campaigns won %d, canceled %d; handovers made %d", st.won.Load(), st.canceled.Load(), st.handedOver.Load())
	if st.won.Load() == 0 || st.canceled.Load() == 0 {
		t.Fatal("the churn made no win or no cancel: it tests nothing")
	}
	for n := range elections {
		el := fmt.Sprintf("churn-%d", n)
		if li, err := keyGone(ctx, els[0], el); err != nil {
			t.Errorf("%s: %v: held by session %s at token %d; %s", el, err, li.Session, li.Token, holderState(els, li.Session, el))
		}
		if n, err := emptied(ctx, cli, keys.Queue(etcd.DefaultPrefix, el)); err != nil {
			t.Errorf("%s: %d queue entries stay: %v", el, n, err)
		}
		if n, err := emptied(ctx, cli, keys.Roster(etcd.DefaultPrefix, el)); err != nil {
			t.Errorf("%s: %d candidate records stay: %v", el, n, err)
		}
	}
}

// churn makes e campaign, win, resign, hand over and cancel at random in
// elections churn-0 … churn-(n-1) for d, and ends every campaign and
// leadership of its own before it returns.
func churn(ctx context.Context, e *LeaseElector, ids []string, seed uint64, n int, d time.Duration, st *churnStats) {
	rng := rand.New(rand.NewPCG(seed, 7))
	end := time.Now().Add(d)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 3) // campaigns of this elector at once
	for time.Now().Before(end) && ctx.Err() == nil {
		sem <- struct{}{}
		el := fmt.Sprintf("churn-%d", rng.IntN(n))
		wait := time.Duration(rng.IntN(30)) * time.Millisecond
		hold := time.Duration(rng.IntN(20)) * time.Millisecond
		move, to := rng.IntN(3), ids[rng.IntN(len(ids))]
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			cctx, ccancel := context.WithTimeout(ctx, wait)
			defer ccancel()
			l, err := e.Campaign(cctx, el)
			if err != nil {
				st.canceled.Add(1)
				return
			}
			st.won.Add(1)
			timer := time.NewTimer(hold)
			defer timer.Stop()
			select {
			case <-timer.C:
			case <-ctx.Done():
			}
			if move == 0 {
				if l.HandOver(ctx, to) == nil { // to may be this elector, or have no record: refused
					st.handedOver.Add(1)
				}
			}
			_ = l.Resign(ctx)
		}()
		select {
		case <-time.After(time.Duration(rng.IntN(5)) * time.Millisecond):
		case <-ctx.Done():
		}
	}
	wg.Wait()
}

// lossySession is a Session that loses one reply in ten of its writes
// (the write is made, and the call fails as if it timed out), fails
// renewals, and lands creates, enqueues, joins and ends late.
type lossySession struct {
	backends.Session
	mu   sync.Mutex
	rng  *rand.Rand
	late *sync.WaitGroup // the writes it lands late
}

// lost reports whether to lose this reply, and the error to return.
func (s *lossySession) lost(err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil && s.rng.IntN(10) == 0 {
		return fmt.Errorf("the test lost the reply: %w", context.DeadlineExceeded)
	}
	return err
}

// landsLate lands one write in twenty late: write is made up to 300ms
// later, when its campaign may have ended, and the caller fails at once
// with errLate.
func (s *lossySession) landsLate(write func(ctx context.Context)) bool {
	s.mu.Lock()
	late, d := s.rng.IntN(20) == 0, time.Duration(s.rng.IntN(300))*time.Millisecond
	s.mu.Unlock()
	if late {
		s.late.Add(1)
		time.AfterFunc(d, func() {
			defer s.late.Done()
			write(context.Background())
		})
	}
	return late
}

// errLate is the error of a write landed late.
var errLate = fmt.Errorf("the test lands it late: %w", context.DeadlineExceeded)

func (s *lossySession) Create(ctx context.Context, election string, value []byte) (backends.Record, error) {
	if s.landsLate(func(ctx context.Context) { _, _ = s.Session.Create(ctx, election, value) }) {
		return backends.Record{}, errLate
	}
	rec, err := s.Session.Create(ctx, election, value)
	return rec, s.lost(err)
}

// End lands an end late too: a Pass or a Delete is guarded by the term's
// token, so one that lands late can end only a term already ending.
func (s *lossySession) End(ctx context.Context, req backends.End) (backends.Record, error) {
	if s.landsLate(func(ctx context.Context) { _, _ = s.Session.End(ctx, req) }) {
		return backends.Record{}, errLate
	}
	rec, err := s.Session.End(ctx, req)
	return rec, s.lost(err)
}

func (s *lossySession) Enqueue(ctx context.Context, election string) (backends.Record, error) {
	if s.landsLate(func(ctx context.Context) { _, _ = s.Session.Enqueue(ctx, election) }) {
		return backends.Record{}, errLate
	}
	rec, err := s.Session.Enqueue(ctx, election)
	return rec, s.lost(err)
}

func (s *lossySession) Join(ctx context.Context, election string, value []byte) (backends.Record, error) {
	if s.landsLate(func(ctx context.Context) { _, _ = s.Session.Join(ctx, election, value) }) {
		return backends.Record{}, errLate
	}
	rec, err := s.Session.Join(ctx, election, value)
	return rec, s.lost(err)
}

// KeepAlive fails one renewal in two, as if it timed out: the holder's
// deadline passes now and then, and the elector takes a new session while
// the store keeps the old one until its TTL ends.
func (s *lossySession) KeepAlive(ctx context.Context) error {
	s.mu.Lock()
	fail := s.rng.IntN(2) == 0
	s.mu.Unlock()
	if fail {
		return fmt.Errorf("the test failed the renewal: %w", context.DeadlineExceeded)
	}
	return s.Session.KeepAlive(ctx)
}

func (s *lossySession) Leave(ctx context.Context, election string) error {
	return s.lost(s.Session.Leave(ctx, election))
}

// churnStats counts what the churn did, so that a churn that did
// nothing fails.
type churnStats struct{ won, canceled, handedOver atomic.Int64 }

// keyGone waits, observing with obs, until election has no leader, or
// 10s pass: an ended campaign's key is swept within a few retry waits.
// It returns the leader last seen.
func keyGone(ctx context.Context, obs *LeaseElector, election string) (LeaderInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ch, err := obs.Observe(ctx, election)
	if err != nil {
		return LeaderInfo{}, err
	}
	var last LeaderInfo
	for li := range ch {
		if li.Token == 0 {
			return li, nil
		}
		last = li
	}
	return last, fmt.Errorf("a leader still after 10s (%w)", context.Cause(ctx))
}

// holderState says whether the elector whose session is owner campaigns
// in, leads, or keeps a record in election.
func holderState(els []*LeaseElector, owner, election string) string {
	for _, e := range els {
		var s string
		e.do(func(time.Time) {
			sess := e.m.SessionID()
			if sess != owner {
				return
			}
			s = fmt.Sprintf("elector %s: active %t, recorded %t, held %t", e.opts.Identity,
				e.m.Active(election), e.m.Recorded(election), e.of(election).held != nil)
		})
		if s != "" {
			return s
		}
	}
	return "no elector's live session"
}

// emptied waits until no key has prefix, or 10s pass, and returns how
// many there were last.
func emptied(ctx context.Context, cli *clientv3.Client, prefix string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		resp, err := cli.Get(ctx, prefix, clientv3.WithPrefix())
		if err != nil {
			return -1, err
		}
		if len(resp.Kvs) == 0 {
			return 0, nil
		}
		w := cli.Watch(ctx, prefix, clientv3.WithPrefix(), clientv3.WithRev(resp.Header.Revision+1))
		select {
		case <-w:
		case <-ctx.Done():
			return len(resp.Kvs), ctx.Err()
		}
	}
}
