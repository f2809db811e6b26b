package watchset

import "github.com/leasehold/leasehold/backends"

// run is the Set's goroutine: it opens the stream when requests wait,
// covers new requests, matches the stream's Batches and the reads', and
// delivers. prepare answers too (a roster request whose change the stream
// carried before it was made), so its answers are delivered before run
// waits: no later Batch may come to carry them out.
func (w *Set[E]) run() {
	defer close(w.done)
	for {
		w.prepare()
		w.sync()
		w.flush()
		var events <-chan E
		if w.stream != nil {
			events = w.stream.Events()
		}
		select {
		case <-w.ctx.Done():
			w.finish()
			return
		case <-w.kick:
		case e, ok := <-events:
			w.onBatch(w.stream.Next(e, ok))
			w.want(true)
		case d := <-w.reads:
			w.onRead(d)
		}
		w.flush()
	}
}

// prepare opens the stream if requests wait and none is open, covers the
// requests made since, and starts a read if one is due and none is in
// flight.
func (w *Set[E]) prepare() {
	w.mu.Lock()
	open := w.stream == nil && (len(w.reqs) > 0 || len(w.rosters) > 0)
	w.mu.Unlock()
	if open {
		st := w.src.Open(w.ctx) // without w.mu: it may wait on the store
		w.mu.Lock()
		w.stream, w.pos, w.wanted, w.readers = st, 0, false, 1
		if r, ok := st.(Readers); ok {
			w.readers = max(r.Readers(), 1)
		}
		w.tracker, _ = st.(Tracker)
		w.mu.Unlock()
	}
	w.want(false)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pos != 0 || w.tracker != nil {
		w.cover()
	}
	for w.reading < w.readers && w.stream != nil {
		batch := w.takeBatch()
		if len(batch) == 0 {
			return
		}
		in := make([]Request, len(batch)) // copied under w.mu: run moves their seen on
		for i, r := range batch {
			in[i] = *r
		}
		w.reading++
		go w.read(w.stream, batch, in)
	}
}

// takeBatch takes up to readBatch requests from toRead, and drops those
// answered or replaced since they were queued: a read of one is wasted.
// w.mu is held.
func (w *Set[E]) takeBatch() []*Request {
	var batch []*Request
	for len(w.toRead) > 0 && len(batch) < readBatch {
		r := w.toRead[0]
		w.toRead[0] = nil
		w.toRead = w.toRead[1:]
		r.queued = false
		if w.current(r) {
			batch = append(batch, r)
		}
	}
	if len(w.toRead) == 0 {
		w.toRead = nil // let the array go
	}
	return batch
}

// want tells the stream whether requests wait: after a Batch (always),
// or if that changed.
func (w *Set[E]) want(always bool) {
	w.mu.Lock()
	st, pending := w.stream, len(w.reqs) > 0 || len(w.rosters) > 0
	tell := st != nil && (always || pending != w.wanted)
	w.wanted = pending
	w.mu.Unlock()
	if tell {
		st.Want(pending)
	}
}

// cover sorts the requests made since the last look, once the stream has
// a position. A Wait from at or after it needs nothing more, as every
// later change is still to come; one from before it needs a read. So does
// every Gone: a pass to a session behind its entry may precede it. A
// Roster is answered, early maybe, if the stream saw its roster change
// after its revision; it waits if the stream tells RosterWrites and its
// revision is at or after start (rosterSeen holds the changes since); it
// is read otherwise. On a Tracker, a request is watched from what it
// knows, and read first only if it is a Gone or knows no revision or one
// before the stream's position (see Tracker). w.mu is held.
func (w *Set[E]) cover() {
	for _, r := range w.fresh {
		switch {
		case !w.current(r):
		case r.Kind == Roster && w.rosterSeen[r.Known.Election] > r.seen:
			w.answer(r, r.Known, nil)
		case w.tracker != nil && (r.Kind == Gone || r.seen == 0 || r.seen < w.pos):
			w.queue(r)
		case w.tracker != nil:
			w.toTrack = append(w.toTrack, r)
		case r.Kind == Roster && r.seen >= w.start && w.writes:
		case r.Kind != Wait || r.Known.Revision < w.pos:
			w.queue(r)
		}
	}
	w.fresh = nil
}

// read runs st's Read of reqs, copied as in, and hands the outcome to
// run.
func (w *Set[E]) read(st Stream[E], reqs []*Request, in []Request) {
	w.reads <- readDone{reqs: reqs, batch: st.Read(w.ctx, in)}
}

// onRead applies a read's Facts, or ends its requests with its error.
func (w *Set[E]) onRead(d readDone) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reading--
	if d.batch.Err != nil {
		for _, r := range d.reqs {
			if w.current(r) {
				w.answer(r, backends.Record{}, d.batch.Err)
			}
		}
		return
	}
	w.apply(d.batch.Facts, d.reqs)
	for _, r := range d.reqs {
		if w.tracker != nil && w.current(r) && !r.tracked {
			w.toTrack = append(w.toTrack, r) // watched from what the read saw
		}
	}
}

// sync starts and ends, on a Tracker, the watches of the requests made
// and ended since it last ran.
func (w *Set[E]) sync() {
	w.mu.Lock()
	t, untracks := w.tracker, w.untracks
	var track []Request
	for _, r := range w.toTrack {
		if w.current(r) && !r.tracked {
			r.tracked = true
			track = append(track, *r)
		}
	}
	w.toTrack, w.untracks = nil, nil
	w.mu.Unlock()
	if t == nil {
		return
	}
	for _, u := range untracks {
		t.Untrack(u.id, u.answered)
	}
	for _, r := range track {
		t.Track(r.id, r, r.seen)
	}
}

// onBatch applies one Batch of the stream.
func (w *Set[E]) onBatch(b Batch) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case b.Err != nil:
		w.broken(b.Err)
		return
	case b.Reset:
		w.reset(b.Position)
	case w.pos == 0 && b.Position != 0:
		w.start, w.writes = b.Position, b.RosterWrites
	}
	w.apply(b.Facts, nil)
	w.pos = max(w.pos, b.Position)
}

// broken ends the stream and every request with err; the next request
// opens a new stream. w.mu is held.
func (w *Set[E]) broken(err error) {
	w.stream.Close()
	for _, r := range w.toRead {
		r.queued = false
	}
	w.stream, w.tracker, w.pos, w.toRead, w.fresh, w.start = nil, nil, 0, nil, nil, 0
	clear(w.rosterSeen)
	for _, m := range []map[string]*Request{w.reqs, w.rosters} {
		for _, r := range m {
			w.answer(r, backends.Record{}, err)
		}
	}
	w.toTrack, w.untracks = nil, nil // their watches ended with the stream
}

// reset reads every pending request again, from pos on: the store's
// revisions went back, and what the requests saw means nothing now. w.mu
// is held.
func (w *Set[E]) reset(pos uint64) {
	w.pos, w.start, w.toRead, w.fresh = 0, pos, nil, nil
	clear(w.rosterSeen)
	clear(w.passWoke)
	for _, m := range []map[string]*Request{w.reqs, w.rosters} {
		for _, r := range m {
			r.seen, r.queued = 0, false
			w.queue(r)
		}
	}
}

// queue puts r in line for a read, unless it waits there already. w.mu
// is held.
func (w *Set[E]) queue(r *Request) {
	if !r.queued {
		r.queued = true
		w.toRead = append(w.toRead, r)
	}
}

// finish ends the stream and waits for the reads in flight.
func (w *Set[E]) finish() {
	if w.stream != nil {
		w.stream.Close()
	}
	for ; w.reading > 0; w.reading-- {
		<-w.reads
	}
}

// flush delivers the answers gathered, unless Close was called.
func (w *Set[E]) flush() {
	w.mu.Lock()
	out := w.out
	w.out = nil
	w.mu.Unlock()
	for _, c := range out {
		if w.ctx.Err() != nil {
			return
		}
		w.deliver(c)
	}
}
