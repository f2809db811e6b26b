package lease

import (
	"context"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/lease/internal/core"
)

// watch is an election's Get or Wait in flight. It is carried out by a
// goroutine of its own (cancel) or, if the store is a backends.Watcher, by
// a request in the elector's WatchSet (tag); in queue mode, between two
// requests, by the goroutine that looks for the entry ahead (cancel).
// Owned by the loop goroutine.
type watch struct {
	a      core.Action        // the core's Get or Wait
	cancel context.CancelFunc // ends the goroutine at work for it; nil: none
	tag    uint64             // its request in the WatchSet; 0: none
	gone   bool               // that request is a WaitGone
	s      backends.Session   // queue mode: the session of the election's entry
	entry  backends.Record    // queue mode: the election's entry, once known
	ahead  uint64             // queue mode: the token of the entry ahead last asked about
}

// watchSet returns the elector's WatchSet, made at its first use. Each
// Change goes to the loop goroutine as changed.
func (e *LeaseElector) watchSet() backends.WatchSet {
	if e.set == nil {
		e.set = e.watcher.Watch(func(c backends.Change) {
			e.post(func(now time.Time) { e.changed(now, c) })
		})
	}
	return e.set
}

// watchInSet carries out the Wait a through the WatchSet. In queue mode
// (queued is the session of the election's entry) it first looks for the
// entry ahead, as queueWait does.
func (e *LeaseElector) watchInSet(a core.Action, queued backends.Session) {
	w := &watch{a: a, s: queued}
	e.watches[a.Election] = w
	if queued != nil {
		e.queueLook(w)
		return
	}
	e.request(w, backends.Record{})
}

// request puts w's next request in the set: a WaitGone of ahead if it
// exists, else the Wait of the core's action.
func (e *LeaseElector) request(w *watch, ahead backends.Record) {
	e.tags++
	w.tag, w.gone = e.tags, ahead.Exists()
	if w.gone {
		e.watchSet().WaitGone(w.tag, ahead)
		return
	}
	e.watchSet().Wait(w.tag, w.a.Record)
}

// changed takes the set's answer c. An answer to a request since
// withdrawn or replaced is dropped. The end of the entry ahead sends the
// election to look at its queue again; any other answer is the outcome of
// the core's Wait, as a goroutine's Store.Wait would report it.
func (e *LeaseElector) changed(now time.Time, c backends.Change) {
	w := e.watches[c.Election]
	if w == nil || w.tag != c.Tag {
		return
	}
	w.tag = 0
	if w.gone && c.Err == nil {
		e.queueLook(w)
		return
	}
	delete(e.watches, c.Election)
	rec := c.Record
	if w.gone {
		rec = backends.Record{} // a failed WaitGone: queueWait returns no record
	}
	e.observed(now, c.Election, w.a.Op, rec, c.Err)
}

// queueLook finds, in a goroutine bounded as queueWait's calls are, the
// entry ahead of the election's own (making that first, once per session),
// and then requests the wait on it, or on the leader key at the head.
func (e *LeaseElector) queueLook(w *watch) {
	ctx, cancel := context.WithCancel(e.ctx)
	w.cancel = cancel
	s, election, entry, prev := w.s, w.a.Election, w.entry, w.ahead
	e.io.Add(1)
	go func() {
		defer e.io.Done()
		defer cancel()
		entry, ahead, named, err := e.queueStep(ctx, s, election, entry, prev)
		e.post(func(now time.Time) { e.looked(now, w, entry, ahead, named, err) })
	}()
}

// looked takes queueLook's outcome, unless w was withdrawn meanwhile.
// A key whose handover marker names this candidate (named) is the
// outcome of the core's Wait, as queueWait returns it.
func (e *LeaseElector) looked(now time.Time, w *watch, entry, ahead backends.Record, named *backends.Record, err error) {
	if e.watches[w.a.Election] != w {
		return
	}
	w.cancel, w.entry, w.ahead = nil, entry, ahead.Token
	if err != nil || named != nil {
		delete(e.watches, w.a.Election)
		var rec backends.Record
		if named != nil {
			rec = *named
		}
		e.observed(now, w.a.Election, w.a.Op, rec, err)
		return
	}
	e.request(w, ahead)
}

// withdraw ends what carries out w: its goroutine, its request in the set.
func (e *LeaseElector) withdraw(w *watch) {
	if w.cancel != nil {
		w.cancel()
	}
	if w.tag != 0 {
		e.set.Stop(w.a.Election)
	}
}
