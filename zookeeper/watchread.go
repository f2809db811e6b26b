package zookeeper

import (
	"context"
	"errors"
	"math"
	"slices"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/errclass"
	"github.com/leasehold/leasehold/internal/watchset"
)

// Read reads each of reqs with its watches (see Watch) on the Store's
// reader, up to recordReads at once, after one sync unless each request
// but the WatchRoster ones was notified since its last read by the
// connection it is read on (see takeFresh), or none was notified and
// the connection's server has what each knows (current). A WatchRoster
// request needs no sync: a lagging server's pzxid is at or below the
// revision asked, so the request is not answered but watches, and the
// watch fires when that server applies the next change of the roster. A
// read that fails because its session's connection went away is made
// once more on the reader of the moment.
func (st *stream) Read(ctx context.Context, reqs []watchset.Request) watchset.Batch {
	told, notified := st.takeFresh(reqs)
	states := stateRequests(reqs)
	facts, err := readFor(st.s, ctx, func(l *link) ([][]watchset.Fact, error) {
		sync := len(states) > 0 && l != told && (notified || !st.current(l, states))
		testHookRead.call(sync)
		if sync {
			if _, err := l.conn.Sync("/"); err != nil {
				return nil, err
			}
		}
		return st.readAll(l, reqs)
	})
	if err != nil {
		return watchset.Batch{Err: readErr(err)}
	}
	var b watchset.Batch
	for _, fs := range facts {
		b.Facts = append(b.Facts, fs...)
	}
	return b
}

// stateRequests returns reqs but the WatchRoster ones: those whose
// reads may need a sync.
func stateRequests(reqs []watchset.Request) []watchset.Request {
	isRoster := func(r watchset.Request) bool { return r.Kind == watchset.Roster }
	if !slices.ContainsFunc(reqs, isRoster) {
		return reqs
	}
	return slices.DeleteFunc(slices.Clone(reqs), isRoster)
}

// takeFresh returns the link that notified every one of reqs but the
// WatchRoster ones since its last read, or nil if one was not notified,
// or they were notified by different links: a read on that link needs no
// sync, as its server sent the change, but a read on another may be
// served by a server that has not seen it yet (on an ensemble, each
// connection may be to another server, at another zxid), and syncs
// first. notified reports whether any of those was notified. It forgets
// the notifications of all of reqs.
func (st *stream) takeFresh(reqs []watchset.Request) (told *link, notified bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	first := true
	for _, r := range reqs {
		key := reqKey{r.Known.Election, r.Kind}
		l := st.fresh[key]
		delete(st.fresh, key)
		if r.Kind == watchset.Roster {
			continue
		}
		notified = notified || l != nil
		if first {
			told, first = l, false
		} else if l != told {
			told = nil
		}
	}
	return told, notified
}

// current reports whether l's server has, for each of reqs, the state
// the request knows or a later one, so that a read on l cannot answer
// with an older state (which is what the sync is for: see the package
// doc, Watches); a change after that state fires the watch the read
// sets, when l's server applies it. That holds for:
//   - a WatchEntry request with an entry of l's session just behind its
//     entry (ownEntries.behind): l's server has that entry's create,
//     which Enqueue saw answered, so it has the entry ahead, made before
//     it, or its deletion. A pass to the session after the read fires
//     its own entry's watch. A waiter's first watch, on the connection
//     that made its entry, thus makes no sync.
//   - a WatchKey request that knows a holder, at a pointer write at or
//     before l's position (link.position): l's server has that write,
//     and the holder's lead node, made at or before it. A candidate that
//     found the key held, on the connection it then watches on, thus
//     watches with no sync.
//
// A key known absent carries no zxid of what made it so (a lower bound,
// for a lead node gone): such a request syncs. So do all on the Store's
// read link: when its session expires, go-zookeeper opens another on it
// and forgets the last zxid it saw, so that link's position says nothing
// of the server its new session reaches (link.has), and its session
// made no entry. A session link keeps its one session, and a server
// behind that session's last zxid refuses it.
func (st *stream) current(l *link, reqs []watchset.Request) bool {
	owner := sessionID(l.conn.SessionID())
	for _, r := range reqs {
		switch r.Kind {
		case watchset.Gone:
			if own, ok := st.s.own.behind(r.Known.Election, r.Known.Token); !ok || own.Owner != owner {
				return false
			}
		case watchset.Wait:
			if r.Known.Owner == "" || r.Known.Revision == 0 || !l.has(r.Known.Revision) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// readAll reads every request of reqs on l, up to recordReads at once,
// and returns the Facts of each, in reqs' order.
func (st *stream) readAll(l *link, reqs []watchset.Request) ([][]watchset.Fact, error) {
	facts := make([][]watchset.Fact, len(reqs))
	errs := make([]error, len(reqs))
	atOnce(len(reqs), func(i int) {
		r := reqs[i]
		switch r.Kind {
		case watchset.Roster:
			facts[i], errs[i] = st.readRoster(l, r)
		case watchset.Gone:
			facts[i], errs[i] = st.readGone(l, r)
		default:
			facts[i], errs[i] = st.readKey(l, r)
		}
	})
	return facts, errors.Join(errs...)
}

// fact returns a Fact of kind what of r's election, newer than any r saw.
func fact(what watchset.What, r watchset.Request, rec backends.Record) watchset.Fact {
	return watchset.Fact{What: what, Election: r.Known.Election, Revision: math.MaxUint64, Record: rec}
}

// readKey reads WatchKey request r's key with watches (see watchKey).
func (st *stream) readKey(l *link, r watchset.Request) ([]watchset.Fact, error) {
	s, el := st.s, r.Known.Election
	path := s.leaderPath(el)
	st.watch(path, route{el: el, kind: r.Kind, l: l})
	rec, err := s.watchKey(l, r.Known, path, func(lead string) { st.watch(lead, route{el: el, kind: r.Kind, l: l}) })
	if err != nil {
		return nil, err
	}
	if !rec.Differs(r.Known) {
		testHookWatching.call(el)
	}
	return []watchset.Fact{fact(watchset.LeaderState, r, since(r.Known, rec))}, nil
}

// readGone reads WatchEntry request r's entry with a watch and, if a
// session of this Store has the entry behind it (own), reads own with a
// watch and the pointer at once (see readWithOwn): a Passed Fact if the
// key was passed to own's session, then the entry's state, absent if it
// is gone (a pass to the entry, which sets its data, leaves it in line).
// After own's data changed (check), the pointer is read first, alone if
// it shows a pass not told yet.
func (st *stream) readGone(l *link, r watchset.Request) ([]watchset.Fact, error) {
	el := r.Known.Election
	own, hasOwn := st.s.own.behind(el, r.Known.Token)
	if st.takeCheck(el) && hasOwn {
		if p, err := st.passedTo(l, r, own, true); err != nil || p != nil {
			return p, err
		}
	}
	path, _ := st.s.entryPath(r.Known) // Wait checked it
	st.watch(path, route{el: el, kind: r.Kind, l: l, entry: true, hasOwn: hasOwn, owner: r.Known.Owner})
	if hasOwn {
		if opath, err := st.s.entryPath(own); err == nil {
			return st.readWithOwn(l, r, own, path, opath)
		}
	}
	_, _, _, err := l.conn.GetW(path)
	gone := fact(watchset.EntryState, r, backends.Record{Owner: r.Known.Owner})
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return []watchset.Fact{gone}, nil
	case err != nil:
		return nil, err
	}
	testHookWatching.call(el)
	gone.Record.Token = r.Known.Token
	return []watchset.Fact{gone}, nil
}

// readWithOwn reads WatchEntry request r's entry at path and own, this
// Store's entry behind it, at opath, each with a watch, and the pointer,
// all at once: a fresh waiter's first read costs one round trip, not
// three. It returns the Passed Fact of a pass to own's session, if any,
// then the entry's state.
//
// The three reads may be served in any order, so a pass may fall between
// the pointer's read and another's. Own's watch tells of a pass after
// own's read (a pass to an entry sets its data, see End), and own's data
// of one before; only if the data shows a pass, or the entry is gone, and
// the pointer none, is the pointer read again, after both reads: a pass
// to the entry just behind the holder's deletes it in the write that
// passes, and when the two notifications come apart another read takes
// the data change: answered with gone alone, the target would look for
// the entry ahead of it (Ahead) and read the key, three round trips more,
// before it leads. The set answers each pass once (see Watch), so a pass
// told by both reads wakes the target once.
func (st *stream) readWithOwn(l *link, r watchset.Request, own backends.Record, path, opath string) ([]watchset.Fact, error) {
	el := r.Known.Election
	st.watch(opath, route{el: el, kind: r.Kind, l: l, mine: true, ahead: path, own: own})
	var aheadErr, ownErr, ptrErr error
	var ownData []byte
	var passed []watchset.Fact
	atOnce(3, func(i int) {
		switch i {
		case 0:
			_, _, _, aheadErr = l.conn.GetW(path)
		case 1:
			ownData, _, _, ownErr = l.conn.GetW(opath)
		default:
			passed, ptrErr = st.passedTo(l, r, own, false)
		}
	})
	aheadGone := errors.Is(aheadErr, zk.ErrNoNode)
	if errors.Is(ownErr, zk.ErrNoNode) {
		ownErr = nil
	}
	if err := errors.Join(ptrErr, ownErr); err != nil || (aheadErr != nil && !aheadGone) {
		return nil, errors.Join(err, aheadErr)
	}
	var err error
	if passed == nil && (aheadGone || len(ownData) > 0) {
		if passed, err = st.passedTo(l, r, own, false); err != nil {
			return nil, err
		}
	}
	gone := fact(watchset.EntryState, r, backends.Record{Owner: r.Known.Owner})
	if !aheadGone {
		gone.Record.Token = r.Known.Token
		if len(passed) == 0 {
			testHookWatching.call(el)
		}
	}
	return append(passed, gone), nil
}

// passedTo reads r's election's pointer and returns the Passed Fact of a
// pass to own's session, if it holds the key; with once, only if no read
// told that pass before.
func (st *stream) passedTo(l *link, r watchset.Request, own backends.Record, once bool) ([]watchset.Fact, error) {
	el := r.Known.Election
	ps, err := getPointer(l, st.s.leaderPath(el), false)
	if err != nil {
		return nil, err
	}
	st.s.ptrs.saw(el, ps)
	if !ps.led() || ps.p.owner != own.Owner {
		return nil, nil
	}
	tok := ps.token()
	if first := st.notePass(el, tok); once && !first {
		return nil, nil
	}
	return []watchset.Fact{{What: watchset.Passed, Election: el, Revision: tok, Entry: own.Token,
		Record: ps.record(el, true, l)}}, nil
}

// readPass reads the pointer on l for r, the route of a WatchEntry
// request's own entry, whose data a pass changed, as notify took the
// notification: the pass's read, on the connection that told it, so with
// no sync (l's server has the pass), and not in turn after the set's
// goroutine and a Read. What it tells goes to the set with the stream's
// next Batch (see tellPass).
func (st *stream) readPass(l *link, r route) {
	testHookRead.call(false)
	req := watchset.Request{Kind: r.kind, Known: backends.Record{Election: r.el}}
	fs, err := st.passedTo(l, req, r.own, true)
	st.tellPass(l, r, fs, err)
	st.kick()
}

// tellPass takes what readPass read for r on l: the Passed Fact of a pass to
// r's entry, or none; err if the read failed. With no Passed Fact, r's
// request is read again, as if its entry's notification came with no
// pass: after a sync unless the read was made, and then with no check of
// the pointer, which it read.
func (st *stream) tellPass(l *link, r route, fs []watchset.Fact, err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err == nil && fs != nil {
		st.told = append(st.told, fs...)
		return
	}
	key := reqKey{r.el, r.kind}
	if err != nil {
		st.checks[r.el] = true
		delete(st.fresh, key)
	} else {
		st.fresh[key] = l
	}
	st.told = append(st.told, watchset.Fact{What: watchset.Reread, Election: r.el, Kind: r.kind, Revision: math.MaxUint64})
}

// takeCheck reports whether the data of election el's WatchEntry
// request's own entry changed since its last read, and forgets it.
func (st *stream) takeCheck(el string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	check := st.checks[el]
	delete(st.checks, el)
	return check
}

// notePass notes the pass at token tok of election el, and reports
// whether no read told it before.
func (st *stream) notePass(el string, tok uint64) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.passed[el] == tok {
		return false
	}
	st.passed[el] = tok
	return true
}

// readRoster lists WatchRoster request r's roster node with a children
// watch, or, if it is absent, sets an exists watch on it: a RosterWrite
// at the node's pzxid if the roster changed after r's revision
// (rosterChanged). A node created between the two reads
// counts as changed: its first record came with it.
func (st *stream) readRoster(l *link, r watchset.Request) ([]watchset.Fact, error) {
	el := r.Known.Election
	rpath := st.s.rosterPath(el)
	st.watch(rpath, route{el: el, kind: r.Kind, l: l})
	changed := func(rev uint64) []watchset.Fact {
		return []watchset.Fact{{What: watchset.RosterWrite, Election: el, Revision: rev}}
	}
	children, stat, _, err := l.conn.ChildrenW(rpath)
	if errors.Is(err, zk.ErrNoNode) {
		ok, stat, _, err := l.conn.ExistsW(rpath)
		switch {
		case err != nil:
			return nil, err
		case ok:
			return changed(max(uint64(stat.Pzxid), r.Known.Revision+1)), nil
		}
		testHookWatching.call(el)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if rosterChanged(stat, len(children), r.Known.Revision) {
		return changed(max(uint64(stat.Pzxid), r.Known.Revision+1)), nil
	}
	testHookWatching.call(el)
	return nil, nil
}

// testHookRead runs as a WatchSet's read begins, telling whether it
// syncs first; tests set it.
var testHookRead testHook[bool]

// testHookWatching runs when the watches of a WatchSet's request are
// set and its read found nothing to answer; tests set it to know when.
var testHookWatching testHook[string]

// readErr classifies a failed read: ErrPermission if the credentials may
// not read, ErrUnavailable otherwise (the connection or its session
// broke, or the Store closed).
func readErr(err error) error {
	const what = "zookeeper: watch set read"
	return errclass.WatchErr(what, classify(what, context.Background(), err), err)
}
