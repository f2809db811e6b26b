package watchset

import "slices"

// apply matches facts, in order, with the pending requests: a fact from
// before what a request has seen is no news to it; one from the same
// revision is compared, in case the request knows less than it says.
// read is nil for a stream's Batch; for a Read's, it holds the requests
// read, and its facts are news only to those of them still pending (see
// fromRead). w.mu is held.
func (w *Set[E]) apply(facts []Fact, read []*Request) {
	for _, f := range facts {
		el := f.Election
		if read != nil && !w.fromRead(f, read) {
			continue
		}
		switch f.What {
		case RosterWrite:
			w.rosterWrite(f)
			continue
		case RosterDigest:
			if r := w.rosters[el]; r != nil {
				w.matchRoster(r, f)
			}
			continue
		case Reread:
			if r := w.kind(f.Kind)[el]; r != nil {
				w.queue(r)
			}
			continue
		case LeaderState:
			if !f.Record.Exists() {
				delete(w.passWoke, el) // the term, and its pass, ended
			}
		}
		if r := w.reqs[el]; r != nil {
			w.match(r, f)
		}
	}
}

// fromRead reports whether f, a fact of a Read of the requests read, is
// about one of them that is still its election's request of its kind. A
// Read tells the store as it was when it was made: to a request made
// since, which replaced the one read, that may be an older state than
// the one it knows, and one a stream whose reads carry no revision
// (ZooKeeper's: math.MaxUint64) cannot tell apart from news. Answered
// with it, an observer would go back to a state it had moved past, and a
// holder would take its own key for lost while it still holds it. The
// request made since has a Read of its own (cover), or the stream
// covers it. w.mu is held.
func (w *Set[E]) fromRead(f Fact, read []*Request) bool {
	kind := f.Kind
	switch f.What {
	case RosterWrite, RosterDigest:
		kind = Roster
	case Reread:
	default:
		kind = Wait // Wait and Gone requests share one map
	}
	cur := w.kind(kind)[f.Election]
	return cur != nil && slices.Contains(read, cur)
}

// match answers r if f tells a change it waits for, and otherwise marks
// it as covered up to f. w.mu is held.
func (w *Set[E]) match(r *Request, f Fact) {
	switch {
	case r.Kind == Wait && (f.What == LeaderState || f.What == LeaderWrite):
		w.matchLeader(r, f)
	case r.Kind != Gone:
	case f.What == EntryState && f.Record.Owner == r.Known.Owner:
		w.matchEntry(r, f)
	case f.What == Passed:
		w.matchPass(r, f)
	}
}

// matchLeader answers the Wait r with the leader key's state f if it
// differs from r's. A LeaderWrite by the holder r knows keeps the term's
// token (a Proclaim); one by another is read. w.mu is held.
func (w *Set[E]) matchLeader(r *Request, f Fact) {
	if f.Revision < r.seen {
		return
	}
	rec := f.Record
	if f.What == LeaderWrite {
		if !r.Known.Exists() || r.Known.Owner != rec.Owner {
			w.queue(r)
			return
		}
		rec.Token = r.Known.Token
	}
	if rec.Differs(r.Known) {
		w.answer(r, rec, nil)
		return
	}
	r.seen = f.Revision
}

// matchEntry answers the Gone r, with its entry, if the entry is absent,
// another incarnation, or written since r last looked (a Nudge). w.mu is
// held.
func (w *Set[E]) matchEntry(r *Request, f Fact) {
	if f.Revision < r.seen {
		return
	}
	e := f.Record
	if e.Token == 0 || e.Token != r.Known.Token || e.Revision > r.seen {
		w.answer(r, r.Known, nil)
		return
	}
	r.seen = f.Revision
}

// matchPass answers the Gone r with the leader key's state if the key was
// passed to a session whose entry waits behind r's (r's own, if r names
// it: Mine), or that had none, by a pass this Set has not answered yet:
// once per Set and pass, even if the pass came before r (a target that
// missed it would wait behind an entry that waits for the key). A target
// passed the key with no entry may have joined the line since, and the
// store cannot tell where: r is woken early, and looks again. w.mu is
// held.
func (w *Set[E]) matchPass(r *Request, f Fact) {
	el := r.Known.Election
	other := f.Entry != 0 && r.Mine.Token != 0 && f.Entry != r.Mine.Token
	if (f.Entry != 0 && f.Entry <= r.Known.Token) || other || f.Revision <= w.passWoke[el] {
		return
	}
	w.passWoke[el] = f.Revision
	w.answer(r, f.Record, nil)
}

// rosterWrite notes a write of a roster record, and answers its
// election's roster request if the write is after its revision. w.mu is
// held.
func (w *Set[E]) rosterWrite(f Fact) {
	el := f.Election
	if _, ok := w.rosterSeen[el]; !ok && len(w.rosterSeen) >= maxRosterSeen {
		clear(w.rosterSeen) // later requests from before f are answered early
		w.start = f.Revision
	}
	w.rosterSeen[el] = max(w.rosterSeen[el], f.Revision)
	if r := w.rosters[el]; r != nil && f.Revision > r.seen {
		w.answer(r, r.Known, nil)
	}
}

// matchRoster answers the Roster r if the digest f, read at or after its
// revision, differs from the one r knows, and otherwise marks it as
// covered up to f. w.mu is held.
func (w *Set[E]) matchRoster(r *Request, f Fact) {
	switch {
	case f.Revision < r.seen:
	case f.Entry != r.Digest:
		w.answer(r, r.Known, nil)
	default:
		r.seen = f.Revision
	}
}
