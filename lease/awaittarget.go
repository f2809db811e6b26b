package lease

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// targetWait is an AwaitTarget call waiting on the loop goroutine for
// its candidate in the roster its leader follows in the WatchSet.
type targetWait struct {
	to   string
	done chan error // one answer: nil, or errUnfollowed
}

// errUnfollowed says the leader stopped following its roster in the set
// (a permanent error of its List, or the leadership ended): AwaitTarget
// reads the roster itself instead.
var errUnfollowed = errors.New("roster not followed")

// AwaitTarget waits until a HandOver(ctx, to) would find its target: a
// candidate named by to (its identity or session ID, as Candidates lists
// them; empty: any candidate that may take the election) in the roster
// the leader follows. It returns nil then, an error wrapping ErrLost (and
// the cause) once the leadership has ended, or one wrapping ctx's error.
// The candidate may leave again before a HandOver: that one then fails
// with ErrNoCandidate, and the caller waits again.
//
// It makes no store request while the leader follows its roster in the
// elector's watch set, as every leader does on etcd, ZooKeeper and
// Consul: a thousand leaderships awaiting their targets cost nothing
// more than their leaders' roster reads after each change. Otherwise
// (the store refused the roster for good) it follows the roster as
// ObserveCandidates does; if the store refuses that too, it returns an
// error wrapping the refusal (backends.ErrPermission, say), and once
// the elector closes, one wrapping ErrClosed. AwaitTarget is safe for
// concurrent use.
func (l *Leadership) AwaitTarget(ctx context.Context, to string) error {
	if l.e == nil {
		return fmt.Errorf("lease: await target %q: %w", l.Election, ErrNotLeadership)
	}
	w := &targetWait{to: to, done: make(chan error, 1)}
	waits, err := l.e.addTarget(l, w)
	if waits {
		err = l.waitTarget(ctx, w)
	}
	if errors.Is(err, errUnfollowed) {
		return l.observeTarget(ctx, to)
	}
	return err
}

// addTarget answers w at once if l has ended or its target is in the
// roster, or adds it to the elector's waits; waits reports the latter.
func (e *LeaseElector) addTarget(l *Leadership, w *targetWait) (waits bool, err error) {
	if !e.do(func(time.Time) {
		switch {
		case !e.holds(l) || l.Err() != nil:
			if err = l.Err(); err == nil {
				err = ErrLost // ended on this loop turn, its context not yet cancelled
			}
		case e.m.HasTarget(l.Election, w.to):
		case e.of(l.Election).roster == nil:
			err = errUnfollowed
		default:
			if e.awaits == nil {
				e.awaits = map[string][]*targetWait{}
			}
			e.awaits[l.Election] = append(e.awaits[l.Election], w)
			waits = true
		}
	}) {
		return false, fmt.Errorf("lease: await target %q: %w", l.Election, ErrClosed)
	}
	if err != nil && !errors.Is(err, errUnfollowed) {
		err = fmt.Errorf("lease: await target %q: %w", l.Election, err)
	}
	return waits, err
}

// waitTarget waits for w's answer, the end of l or of ctx; it withdraws w
// if it was not answered.
func (l *Leadership) waitTarget(ctx context.Context, w *targetWait) error {
	var err error
	select {
	case err = <-w.done:
		return err
	case <-l.Context().Done():
		err = fmt.Errorf("lease: await target %q: %w", l.Election, l.Err())
	case <-ctx.Done():
		err = fmt.Errorf("lease: await target %q: %w", l.Election, ctx.Err())
	}
	l.e.do(func(time.Time) { l.e.removeTarget(l.Election, w) })
	return err
}

// answerTargets answers the waits of election whose target the core's
// roster now has. On the loop goroutine.
func (e *LeaseElector) answerTargets(election string) {
	ws := e.awaits[election]
	if len(ws) == 0 {
		return
	}
	keep := ws[:0]
	for _, w := range ws {
		if e.m.HasTarget(election, w.to) {
			w.done <- nil
		} else {
			keep = append(keep, w)
		}
	}
	e.setTargets(election, keep)
}

// dropTargets answers every wait of election with err. On the loop
// goroutine.
func (e *LeaseElector) dropTargets(election string, err error) {
	for _, w := range e.awaits[election] {
		w.done <- err
	}
	delete(e.awaits, election)
}

// removeTarget withdraws w, if it waits. On the loop goroutine.
func (e *LeaseElector) removeTarget(election string, w *targetWait) {
	e.setTargets(election, slices.DeleteFunc(e.awaits[election], func(x *targetWait) bool { return x == w }))
}

// setTargets keeps ws as election's waits, dropping its entry if none.
func (e *LeaseElector) setTargets(election string, ws []*targetWait) {
	if len(ws) == 0 {
		delete(e.awaits, election)
		return
	}
	e.awaits[election] = ws
}

// observeTarget waits for the target as AwaitTarget does, following the
// roster with an observer of its own (as ObserveCandidates does). It
// returns nil once the target is listed; else an error wrapping, in this
// order, the end of l, the store's refusal of the roster for good, the
// end of ctx, or ErrClosed.
func (l *Leadership) observeTarget(ctx context.Context, to string) error {
	obs, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(l.Context(), cancel)
	defer stop()
	var refused error // written before ch closes
	ch := stream(l.e, obs, func(obs context.Context, ch chan<- []Candidate) {
		refused = l.e.followCandidates(obs, l.Election, ch)
	})
	for cs := range ch {
		if slices.ContainsFunc(cs, func(c Candidate) bool { return l.targets(c, to) }) {
			return nil
		}
	}
	err := ErrClosed
	switch {
	case l.Err() != nil:
		err = l.Err()
	case refused != nil:
		err = refused
	case ctx.Err() != nil:
		err = ctx.Err()
	}
	return fmt.Errorf("lease: await target %q: %w", l.Election, err)
}

// targets reports whether a handover of l to to may go to c, as the
// core's Target decides (core.Target).
func (l *Leadership) targets(c Candidate, to string) bool {
	return c.Session != l.Session && c.MayLead && !c.Damped && !c.Superseded && !c.Requester &&
		(to == "" || c.Identity == to || c.Session == to)
}
