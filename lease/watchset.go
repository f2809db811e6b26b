package lease

import (
	"context"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/lease/internal/core"
)

// watch is an election's Get, Wait or WaitGone in flight. A Get is
// carried out by a goroutine of its own (cancel), a Wait or WaitGone by a
// request in the elector's WatchSet (tag). Owned by the loop goroutine.
type watch struct {
	watchOp
	cancel context.CancelFunc // ends the goroutine at work for it; nil: none
	tag    uint64             // its request in the WatchSet; 0: none
}

// watchOp is what the answer to the core's Get, Wait or WaitGone needs
// of its action: the elector keeps one per election it holds or waits
// for, so it keeps these few words and not the action, which would
// triple a watch's size.
type watchOp struct {
	kind     core.Kind
	election string
	op       uint64
	// owner and token are a WaitGone's entry's: an answer with another
	// state is the key's (backends.Change).
	owner string
	token uint64
}

// watchOpOf returns what watched needs of action a.
func watchOpOf(a core.Action) watchOp {
	w := watchOp{kind: a.Kind, election: a.Election, op: a.Op}
	if a.Kind == core.WaitGone {
		w.owner, w.token = a.Record.Owner, a.Record.Token
	}
	return w
}

// watchSet returns the elector's WatchSet, made at its first use. Each
// Change goes to the loop goroutine as changed.
func (e *LeaseElector) watchSet() backends.WatchSet {
	if e.set == nil {
		e.set = e.store.Watch(func(c backends.Change) {
			e.post(func(now time.Time) { e.changed(now, c) })
		})
	}
	return e.set
}

// watchInSet carries out the Wait or WaitGone a through the WatchSet.
func (e *LeaseElector) watchInSet(a core.Action) {
	e.tags++
	w := &watch{watchOp: watchOpOf(a), tag: e.tags}
	e.entry(a.Election).watch = w
	if a.Kind == core.WaitGone {
		e.watchSet().Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: w.tag, Known: a.Record, Mine: a.Mine})
		return
	}
	e.watchSet().Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: w.tag, Known: a.Record})
}

// changed takes the set's answer c, the outcome of the core's Wait or
// WaitGone (a WatchKey or WatchEntry request). An answer to a request since withdrawn or replaced is dropped, but
// the key's state it may carry goes to the core as news (core.Seen): a
// set answers a pass behind an entry once, so a target whose request was
// replaced meanwhile would not hear of it again.
func (e *LeaseElector) changed(now time.Time, c backends.Change) {
	if c.Roster {
		e.rosterChanged(now, c)
		return
	}
	w := e.of(c.Election).watch
	if w == nil || w.tag != c.Tag {
		e.trace("watch answer dropped", c.Election, c.Tag, c.Record, c.Err)
		if c.Err == nil {
			e.m.Seen(now, c.Election, c.Record)
		}
		return
	}
	e.unwatch(w)
	e.watched(now, w.watchOp, c.Record, c.Err)
}

// withdraw ends what carries out w: its goroutine, its request in the set.
func (e *LeaseElector) withdraw(w *watch) {
	if w.cancel != nil {
		w.cancel()
	}
	if w.tag != 0 {
		e.set.Stop(w.election, backends.WatchKey)
	}
}
