package zookeeper

import (
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
			w.readDone(rd, outs[i].rec, outs[i].err)
		}
	}
}

// readOut is the outcome of one read of a batch; made is false for a
// request no longer the reader's, which was not read.
type readOut struct {
	rec  backends.Record
	err  error
	made bool
}

// readAll reads every request of batch still the reader's on l, up to
// recordReads at once (atOnce), and returns the outcomes in batch's
// order.
func (w *watchSet) readAll(l *link, batch []read) []readOut {
	outs := make([]readOut, len(batch))
	atOnce(len(batch), func(i int) {
		if rd := batch[i]; w.stillMine(rd) {
			rec, err := w.readWatched(l, rd.r)
			outs[i] = readOut{rec: rec, err: err, made: true}
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

// readWatched reads r's node with a watch on l. For a WaitGone the
// Record is r's entry if the node exists, and absent if not; after a
// nudge, see wokenBy. For a Wait that reads the node as r knows it, the
// epoch node is watched too; a node read absent carries the marker, as
// Get reads it, and one whose deletion came with a marker, the marker
// (markedGone). r's mark is read under w.mu: this goroutine alone reads
// r while it is reading.
func (w *watchSet) readWatched(l *link, r *watchReq) (backends.Record, error) {
	w.mu.Lock()
	mark, was := r.mark, r.rec
	w.mu.Unlock()
	switch {
	case r.roster:
		return readRosterW(l, r)
	case r.gone && mark == readMark:
		return w.wokenBy(l, r)
	case r.gone:
		return w.readEntry(l, r)
	case mark == readMark:
		return w.s.markedGone(l, r.known.Election, was)
	}
	wd, err := watchNode(l, r.known.Election, r.path, false)
	switch {
	case err != nil:
		return wd.rec, err
	case !wd.rec.Exists() && wd.rec.Differs(r.known):
		wd.rec.To, err = w.s.markedTo(l, r.known.Election)
	case wd.rec.Exists() && !wd.rec.Differs(r.known):
		_, err = getEntryW(l, r.epath)
	}
	return wd.rec, err
}

// readEntry reads WaitGone request r's entry with a watch: the absent
// Record if it is gone, else r's entry. An entry nudged before this watch
// was set (its data version is not 0: only nudges write it) may have
// been a marked delete's nudge that came before this watch, so the
// target would never hear of it: the marker is read too, and if it names
// an entry behind r's and the set has answered no WaitGone of the
// election with it (marked), the Record is wokenBy's, the absent key and
// its To, as if the nudge had come after. Otherwise the watch waits for
// its events: a marker is answered once per set, as a nudge is.
func (w *watchSet) readEntry(l *link, r *watchReq) (backends.Record, error) {
	_, st, _, err := l.conn.GetW(r.path)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return backends.Record{}, nil
	case err != nil:
		return backends.Record{}, err
	case st.Version == 0:
		return r.known, nil
	}
	rec, err := w.wokenBy(l, r)
	if err == nil && rec.To != "" && w.markSeen(r) {
		return r.known, nil
	}
	return rec, err
}

// markSeen reports whether the set has answered a WaitGone of r's
// election with the marker r read (r.markZ).
func (w *watchSet) markSeen(r *watchReq) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	z, ok := w.marked[r.known.Election]
	return ok && z == r.markZ
}

// wokenBy reads the handover marker after r's entry was nudged: the
// absent key with its To if the marker names an entry behind r's, which
// a marked delete woke (mark nudges the entry ahead of its
// target's); else r's entry, as a nudge of old answers.
func (w *watchSet) wokenBy(l *link, r *watchReq) (backends.Record, error) {
	to, entry, mz, err := readMarkerAt(l, w.s.epochPath(r.known.Election))
	if err != nil || to == "" || entry <= r.known.Token {
		return r.known, err
	}
	w.mu.Lock()
	r.markZ = mz
	w.mu.Unlock()
	return backends.Record{Election: r.known.Election, Revision: l.position(), To: to}, nil
}

// readDone takes the outcome of r's read: it answers r if the node
// differs from what r knows, or, for a WaitGone, is absent; otherwise r
// waits for its watch, or, if an event for its node came while it read,
// is read again.
func (w *watchSet) readDone(rd read, rec backends.Record, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := rd.r
	switch {
	case !w.mine(rd):
	case err != nil:
		w.fail(r, r.l, err)
	case r.roster && rec.Revision != 0: // changed: see readRosterW
		w.answer(r, rec, nil)
	case r.roster:
		w.watchRoster(r)
	case r.gone && (r.mark == readMark || rec.To != ""):
		w.answer(r, rec, nil)
	case r.gone && r.fired == zk.EventNodeDataChanged:
		r.sync, r.mark = false, readMark
		w.queue(r)
	case r.gone && (!rec.Exists() || r.fired != 0):
		w.answer(r, r.known, nil)
	case !r.gone && rec.Differs(r.known):
		w.answer(r, since(r.known, rec), nil)
	case r.fired != 0:
		r.sync = r.fired == zk.EventNotWatching
		w.queue(r)
	case r.l.conn.State() != zk.StateHasSession: // dropped since: see dropped
		r.sync = true
		w.queue(r)
	default:
		r.state, r.rec, r.mark = watching, rec, noMark
		w.keyRead(r, rec)
		testHookWatching(r.known.Election)
	}
}

// testHookWatching runs when a watch of a WatchSet's request (with the
// set's mutex held), of a Wait, a WaitGone or a WaitList is set; tests
// set it to know when.
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

// event takes a watch notification of link l: the request watching
// ev.Path on l is answered (a deletion of the node it read, or of a
// WaitGone's entry) or read again (any other change, a WaitGone's nudge
// or a deletion that a change of the epoch node came before, which only
// a marked delete makes while the node exists, to read the marker; or,
// after the watch ended with its connection or session, with a sync). An
// event that comes while the request is being read on l is kept for
// readDone: it may be the watch the read just set firing. One for the
// epoch node then is not: it comes before the read's answer, which
// go-zookeeper delivers after it, so it is older than the epoch watch
// that read sets (a marked delete after that read also deletes the node,
// whose watch then fires after it and is kept).
func (w *watchSet) event(l *link, ev zk.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.paths[ev.Path]
	if r == nil || r.l != l {
		return
	}
	switch {
	case ev.Path == r.epath:
		if r.state == watching && ev.Type == zk.EventNodeDataChanged && r.rec.Exists() {
			r.mark = epochMoved
		}
	case r.state == reading:
		if r.fired == 0 || ev.Type == zk.EventNotWatching {
			r.fired = ev.Type
		}
	case r.state != watching:
	case ev.Type == zk.EventNotWatching:
		r.sync, r.mark = true, noMark
		w.queue(r)
	case r.roster: // its children, or the node, changed
		w.answer(r, backends.Record{}, nil)
	case r.gone && ev.Type == zk.EventNodeDataChanged:
		r.sync, r.mark = false, readMark
		w.queue(r)
	case r.gone:
		w.answer(r, r.known, nil)
	case ev.Type == zk.EventNodeDeleted && r.rec.Exists() && r.mark == epochMoved:
		r.sync, r.mark = false, readMark
		w.queue(r)
	case ev.Type == zk.EventNodeDeleted && r.rec.Exists():
		w.answer(r, gone(r.known.Election, r.rec, l), nil)
	default:
		r.sync, r.mark = false, noMark
		w.queue(r)
	}
}
