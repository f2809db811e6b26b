package zookeeper

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// queue puts r in line for a read, starting a reading goroutine if fewer
// than maxReaders run; w.mu is held.
func (w *watchSet) queue(r *watchReq) {
	r.state, r.l, r.fired = queued, nil, 0
	w.todo = append(w.todo, r)
	if w.readers >= maxReaders {
		return
	}
	w.readers++
	if !w.s.spawn(w.readLoop) {
		w.readers--
		w.answer(r, backends.Record{}, fmt.Errorf("zookeeper: watch %q: %w: %w",
			r.known.Election, backends.ErrUnavailable, errStoreClosed))
	}
}

// readLoop reads for the set until no request waits for a read.
func (w *watchSet) readLoop() {
	for batch, needSync := w.take(); len(batch) > 0; batch, needSync = w.take() {
		w.readBatch(batch, needSync)
	}
}

// read is one read of a request: the request and its read count then.
type read struct {
	r *watchReq
	n uint64
}

// mine reports whether rd is the read r is waiting for: a request read
// again (queued anew and taken by another reader meanwhile) takes the
// outcome of its newest read only. w.mu is held.
func (w *watchSet) mine(rd read) bool {
	return w.current(rd.r) && rd.r.state == reading && rd.r.reads == rd.n
}

// take returns up to readBatch reads to make, and whether any needs a
// sync first; none, and one reader fewer, when there are none.
func (w *watchSet) take() (batch []read, needSync bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.todo) > 0 && len(batch) < readBatch {
		r := w.todo[0]
		w.todo = w.todo[1:]
		if w.current(r) && r.state == queued {
			r.state = reading
			r.reads++
			needSync = needSync || r.sync
			batch = append(batch, read{r, r.reads})
		}
	}
	if len(w.todo) == 0 {
		w.todo = nil
	}
	if len(batch) == 0 {
		w.readers--
	}
	return batch, needSync
}

// readBatch reads each request of batch with a watch, on the reader,
// after one sync if one needs it (synced). The reads go out together, up
// to recordReads at once, so a batch costs about a round trip after the
// sync's, not one per request.
func (w *watchSet) readBatch(batch []read, needSync bool) {
	l, done, err := w.s.reader(w.ctx)
	if err != nil {
		w.failed(batch, nil, err)
		return
	}
	defer done()
	w.mu.Lock()
	for _, rd := range batch {
		if w.mine(rd) {
			rd.r.l = l
		}
	}
	w.mu.Unlock()
	readAll := func() ([]readOut, error) { return w.readAll(l, batch), nil }
	var outs []readOut
	if needSync {
		outs, err = synced(l, "/", readAll)
	} else {
		outs, err = readAll()
	}
	if err != nil {
		w.failed(batch, l, err)
		return
	}
	for i, rd := range batch {
		if outs[i].made {
			w.readDone(rd, outs[i])
		}
	}
}

// readOut is the outcome of one read of a batch; made is false for a
// request no longer the reader's, which was not read. done says rec
// answers the request; other is the second node the request watches
// if not ("": none).
type readOut struct {
	rec   backends.Record
	other string
	done  bool
	err   error
	made  bool
}

// readAll reads every request of batch still the reader's on l, up to
// recordReads at once (atOnce), and returns the outcomes in batch's
// order.
func (w *watchSet) readAll(l *link, batch []read) []readOut {
	outs := make([]readOut, len(batch))
	atOnce(len(batch), func(i int) {
		if rd := batch[i]; w.stillMine(rd) {
			outs[i] = w.readWatched(l, rd.r)
			outs[i].made = true
		}
	})
	return outs
}

// stillMine is mine, taking w.mu.
func (w *watchSet) stillMine(rd read) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.mine(rd)
}

// readWatched reads r's nodes with watches on l (see Watch): for a Wait,
// the pointer node and, if the key is as r knows it, its lead node; for
// a WaitGone, the pointer first if r's own entry changed (check), then
// the entry, r's own entry and the pointer. r's check is read under w.mu:
// this goroutine alone reads r while it is reading.
func (w *watchSet) readWatched(l *link, r *watchReq) readOut {
	w.mu.Lock()
	check, nudge := r.check, r.nudge
	w.mu.Unlock()
	switch {
	case r.roster:
		rec, err := readRosterW(l, r)
		return readOut{rec: rec, done: rec.Revision != 0, err: err} // changed: see readRosterW
	case !r.gone:
		return w.readWait(l, r)
	case check:
		if out := w.readPass(l, r); out.done || out.err != nil {
			return out
		}
	}
	return w.readEntry(l, r, nudge)
}

// readWait reads Wait request r's key with watches (see watchKey).
func (w *watchSet) readWait(l *link, r *watchReq) readOut {
	wd, err := w.s.watchKey(l, r.known, r.path, func(lead string) {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.current(r) {
			w.watchOther(r, lead) // its notification may come before the read's answer
		}
	})
	if err != nil {
		return readOut{err: err}
	}
	out := readOut{rec: since(r.known, wd.rec), done: wd.rec.Differs(r.known)}
	if !out.done {
		out.other = wd.leadPath
	}
	return out
}

// readEntry reads WaitGone request r's entry with a watch, then r's own
// entry with one, and the pointer: done with r's entry if it is gone, or
// was nudged (nudge: its data changed, and not by a pass to it, see
// passData), or with the key if it was passed to own's session
// (readPass).
func (w *watchSet) readEntry(l *link, r *watchReq, nudge bool) readOut {
	data, _, _, err := l.conn.GetW(r.path)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return readOut{rec: r.known, done: true}
	case err != nil:
		return readOut{err: err}
	case nudge && !bytes.Equal(data, passData):
		return readOut{rec: r.known, done: true}
	case r.own == "":
		return readOut{rec: r.known}
	}
	oev, err := getEntryW(l, r.own)
	if err != nil || oev == nil {
		return readOut{rec: r.known, err: err}
	}
	out := w.readPass(l, r)
	out.other = r.own
	return out
}

// readPass reads the pointer of r's election and is done with the key if
// it names a node of own's session at a token no WaitGone of the set was
// answered with.
func (w *watchSet) readPass(l *link, r *watchReq) readOut {
	ps, _, err := getPointer(l, w.s.leaderPath(r.known.Election), false)
	if err != nil {
		return readOut{err: err}
	}
	w.s.ptrs.saw(r.known.Election, ps)
	if !ps.led() || ps.p.owner != r.owner {
		return readOut{rec: r.known}
	}
	w.mu.Lock()
	seen := w.passed[r.known.Election] == ps.token()
	w.mu.Unlock()
	return readOut{rec: ps.record(r.known.Election, true, l), done: !seen}
}

// readDone takes the outcome of r's read: it answers r if out is done;
// otherwise r waits for its watches, or, if an event for its nodes came
// while it read, is read again.
func (w *watchSet) readDone(rd read, out readOut) {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := rd.r
	switch {
	case !w.mine(rd):
	case out.err != nil:
		w.fail(r, r.l, out.err)
	case out.done:
		w.answer(r, out.rec, nil)
	case r.fired != 0:
		r.sync = r.fired == zk.EventNotWatching
		w.queue(r)
	case r.l.conn.State() != zk.StateHasSession: // dropped since: see dropped
		r.sync = true
		w.queue(r)
	default:
		r.state, r.check, r.nudge = watching, false, false
		w.watchOther(r, out.other)
		testHookWatching(r.known.Election)
	}
}

// testHookWatching runs, with the set's mutex held, when the watches of
// a WatchSet's request are set; tests set it to know when.
var testHookWatching = func(election string) {}

// failed fails every request of batch still current with err, from a
// read on l (nil if there was none).
func (w *watchSet) failed(batch []read, l *link, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, rd := range batch {
		if w.mine(rd) {
			w.fail(rd.r, l, err)
		}
	}
}

// fail answers r with err from a read on l, unless the read failed
// because l is a session's connection that went away (see readFor): r
// is then read again on the reader of the moment. w.mu is held.
func (w *watchSet) fail(r *watchReq, l *link, err error) {
	if l != nil && leftBehind(l, err) {
		r.sync = true
		w.queue(r)
		return
	}
	w.answer(r, backends.Record{}, w.readErr(r, err))
}

// readErr classifies a failed read of r: ErrPermission if the
// credentials may not read, ErrUnavailable otherwise (the connection or
// its session broke, or the Store closed).
func (w *watchSet) readErr(r *watchReq, err error) error {
	what := fmt.Sprintf("zookeeper: watch %q", r.known.Election)
	if permanent(err) {
		return fmt.Errorf("%s: %w: %w", what, backends.ErrPermission, err)
	}
	if errors.Is(err, backends.ErrUnavailable) {
		return fmt.Errorf("%s: %w", what, err)
	}
	return fmt.Errorf("%s: %w: %w", what, backends.ErrUnavailable, err)
}

// dropped reads again, on the reader of the moment, every request whose
// watch is on link l, which lost its connection: the watch would come
// back with it, but if the session expired meanwhile the notifications it
// owes are lost, and until then the request would hear nothing. A read in
// flight on l fails or lands on its next connection (see readDone).
func (w *watchSet) dropped(l *link) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, reqs := range []map[string]*watchReq{w.reqs, w.rosters} {
		for _, r := range reqs {
			if r.l == l && r.state == watching {
				r.sync = true
				w.queue(r)
			}
		}
	}
}

// event takes a watch notification of link l for the request watching
// ev.Path on l: a WaitGone's entry deleted or changed answers it with the
// entry; its own entry changed has it read the pointer (check); any
// other change has the request read again, with no sync, or after the
// watch ended with its connection or session, with one. An event that
// comes while the request is being read on l is kept for readDone: it
// may be the watch the read just set firing.
func (w *watchSet) event(l *link, ev zk.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.paths[ev.Path]
	if r == nil || r.l != l {
		return
	}
	own := r.gone && ev.Path == r.own && ev.Path != r.path
	switch {
	case r.state == reading:
		if r.fired == 0 || ev.Type == zk.EventNotWatching {
			r.fired = ev.Type
		}
		r.check = r.check || (own && ev.Type == zk.EventNodeDataChanged)
		r.nudge = r.nudge || (r.gone && !own && ev.Type == zk.EventNodeDataChanged)
	case r.state != watching:
	case ev.Type == zk.EventNotWatching:
		r.sync = true
		w.queue(r)
	case r.roster: // its children, or the node, changed
		w.answer(r, backends.Record{}, nil)
	case own && ev.Type == zk.EventNodeDataChanged:
		r.sync, r.check = false, true
		w.queue(r)
	case r.gone && ev.Type == zk.EventNodeDataChanged: // a nudge, or a pass to the entry: read it
		r.sync, r.nudge = false, true
		w.queue(r)
	case r.gone:
		w.answer(r, r.known, nil)
	default:
		r.sync = false
		w.queue(r)
	}
}
