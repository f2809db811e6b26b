package scenario

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/leasehold/leasehold/lease"
)

// lineWin is a leadership won in a line: by member i, at at; l is the
// leasehold Leadership (nil for another library).
type lineWin struct {
	i   int
	l   *lease.Leadership
	at  time.Time
	err error
}

// line is n+1 candidates of one election: one leads, the others wait in
// the order they joined. A member campaigns when told to (join) and
// reports its win; the old leader joins again once its successor leads,
// so every hand-off has n waiters in line.
type line struct {
	wins   chan lineWin
	join   []chan struct{}
	cur    lineWin // the current leader
	cancel context.CancelFunc
	wg     sync.WaitGroup
	close  func()
}

// startLine starts n+1 members, acquire(ctx, i) being member i's campaign;
// member 0 leads and the others join in order. closeFn ends what acquire
// uses, after the members' context is cancelled.
func startLine(n int, acquire func(ctx context.Context, i int) (*lease.Leadership, error), closeFn func()) (*line, error) {
	ctx, cancel := context.WithCancel(context.Background())
	ln := &line{wins: make(chan lineWin, n+1), cancel: cancel, close: closeFn}
	for i := range n + 1 {
		ln.join = append(ln.join, make(chan struct{}, 1))
		ln.wg.Go(func() { ln.member(ctx, i, acquire) })
	}
	ln.join[0] <- struct{}{}
	w, err := recv(ln.wins, "first leader")
	if err == nil {
		err = w.err
	}
	if err != nil {
		ln.stop()
		return nil, err
	}
	ln.cur = w
	for i := 1; i <= n; i++ {
		ln.join[i] <- struct{}{}
	}
	return ln, nil
}

// member campaigns each time it is told to join, until ctx ends.
func (ln *line) member(ctx context.Context, i int, acquire func(context.Context, int) (*lease.Leadership, error)) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-ln.join[i]:
		}
		l, err := acquire(ctx, i)
		if ctx.Err() != nil {
			return
		}
		ln.wins <- lineWin{i: i, l: l, at: time.Now(), err: err}
	}
}

// pass runs act (the leader's release) and waits for the successor: it
// returns the successor's win and the time from act's call to it. The old
// leader then joins the line again.
func (ln *line) pass(act func(ctx context.Context) error) (lineWin, time.Duration, error) {
	ctx, cancel := bg()
	defer cancel()
	t0 := time.Now()
	if err := act(ctx); err != nil {
		return lineWin{}, 0, fmt.Errorf("release: %w", err)
	}
	w, err := recv(ln.wins, "successor")
	if err == nil {
		err = w.err
	}
	if err != nil {
		return lineWin{}, 0, fmt.Errorf("successor: %w", err)
	}
	old := ln.cur.i
	ln.cur = w
	ln.join[old] <- struct{}{}
	return w, w.at.Sub(t0), nil
}

// stop ends every member and what they use.
func (ln *line) stop() {
	ln.cancel()
	ln.close()
	ln.wg.Wait()
}
