package leasetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/lease"
)

// runQueueTests runs the tests of the ordered-queue mode, with the resign
// hand-off; the suite's base options have lease.WaitQueue.
func (s *suite) runQueueTests(t *testing.T) {
	t.Run("ResignHandoff", s.testResignHandoff)
	t.Run("TakesTurns", s.testTakesTurns)
	t.Run("CanceledWaiters", s.testQueueCanceledWaiters)
	t.Run("Mixed", s.testMixed)
}

// runKeyModeTests runs the tests of key mode; the suite's base options
// have lease.WaitKey.
func (s *suite) runKeyModeTests(t *testing.T) {
	t.Run("ResignHandoff", s.testResignHandoff)
	t.Run("TakesTurns", s.testTakesTurns)
	t.Run("Mixed", s.testMixed)
}

// testTakesTurns: a leader and four waiters; each resign hands over to
// exactly one waiter, with a greater token, until all have led.
func (s *suite) testTakesTurns(t *testing.T) {
	el := backendtest.Election(t)
	l := campaign(t, s.mustElector(t, "first"), el)
	pending := map[string]<-chan won{}
	for i := range 4 {
		e := s.mustElector(t, fmt.Sprintf("w%d", i))
		pending[e.Identity()] = campaignAsync(t, e, el)
	}
	takeTurns(t, l, pending)
}

// testQueueCanceledWaiters: two of three waiters cancel their campaigns
// (their electors live on); the third, whatever its place in the queue,
// leads after the leader resigns, so a canceled waiter leaves no entry
// that would block the queue.
func (s *suite) testQueueCanceledWaiters(t *testing.T) {
	el := backendtest.Election(t)
	l := campaign(t, s.mustElector(t, "leader"), el)
	var cancels []context.CancelFunc
	var errs []chan error
	for i := range 2 {
		e := s.mustElector(t, fmt.Sprintf("quitter%d", i))
		awaitSession(t, e)
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		ch := make(chan error, 1)
		go func() { _, err := e.Campaign(ctx, el); ch <- err }()
		cancels, errs = append(cancels, cancel), append(errs, ch)
	}
	last := campaignAsync(t, s.mustElector(t, "last"), el)
	for i, cancel := range cancels {
		cancel()
		select {
		case err := <-errs[i]:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("canceled campaign: %v, want context.Canceled", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("canceled campaign did not return within 10s")
		}
	}
	resign(t, l)
	if w := awaitWin(t, last, 10*time.Second); w.l.Token <= l.Token {
		t.Fatalf("token %d after %d", w.l.Token, l.Token)
	}
}

// testMixed: candidates of the suite's wait mode and of the other one
// share one election, with a leader of the other mode first; each resign
// hands over to exactly one of them.
func (s *suite) testMixed(t *testing.T) {
	el := backendtest.Election(t)
	other := s.base
	other.Wait = lease.WaitKey
	if s.base.Wait == lease.WaitKey {
		other.Wait = lease.WaitQueue
	}
	l := campaign(t, s.electorWith(t, "other-leader", other), el)
	pending := map[string]<-chan won{
		"other": campaignAsync(t, s.electorWith(t, "other", other), el),
		"same":  campaignAsync(t, s.mustElector(t, "same"), el),
	}
	takeTurns(t, l, pending)
}

// takeTurns resigns l and each winner after it until every pending
// campaign has won once, each alone and with a greater token.
func takeTurns(t *testing.T, l *lease.Leadership, pending map[string]<-chan won) {
	t.Helper()
	for len(pending) > 0 {
		resign(t, l)
		next := awaitAny(t, pending, 10*time.Second)
		if next.l.Token <= l.Token {
			t.Fatalf("token %d after %d", next.l.Token, l.Token)
		}
		l = next.l
	}
}

// awaitAny waits for one of the pending campaigns to win, checks that no
// other has won with it (a winner is alone until it resigns), and removes
// it from pending.
func awaitAny(t *testing.T, pending map[string]<-chan won, within time.Duration) won {
	t.Helper()
	ids := make([]string, 0, len(pending))
	cases := []reflect.SelectCase{{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(time.After(within))}}
	for id, ch := range pending {
		ids = append(ids, id)
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ch)})
	}
	i, v, _ := reflect.Select(cases)
	if i == 0 {
		t.Fatalf("none of %d waiting campaigns won within %v", len(pending), within)
	}
	id, w := ids[i-1], v.Interface().(won)
	if w.err != nil {
		t.Fatalf("%s: Campaign: %v", id, w.err)
	}
	delete(pending, id)
	for other, ch := range pending {
		select {
		case w2 := <-ch:
			t.Fatalf("%s and %s both won (tokens %d, %d; err %v)", id, other, w.l.Token, w2.l.Token, w2.err)
		default:
		}
	}
	return w
}

func (s *suite) mustElector(t *testing.T, identity string) *lease.LeaseElector {
	e, _ := s.elector(t, identity)
	return e
}

// electorWith is elector with other options.
func (s *suite) electorWith(t *testing.T, identity string, opts lease.Options) *lease.LeaseElector {
	e, _ := s.electorOpts(t, identity, opts)
	return e
}
