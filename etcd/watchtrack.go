package etcd

import (
	"slices"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/internal/watchset"
)

// role says which key of its request a watch follows.
type role uint8

const (
	leaderRole  role = iota + 1 // a WatchKey's leader key
	termRole                    // a WatchKey's term key
	aheadRole                   // a WatchEntry's entry ahead
	mineRole                    // a WatchEntry's own entry, which a pass to the waiter writes
	rosterRole                  // a WatchRoster's records, on a watch of its own
	rostersRole                 // every roster's records: the stream's roster watch (rosterWatch)
)

// watcher is one watch of a stream: the keys [key, end) it watches, for
// which request and role, and from which revision it is made again
// (next; 0: the current one).
type watcher struct {
	req      uint64 // the request's ID (Track)
	role     role
	election string
	holder   string // leaderRole: the session the request knows holds the key
	key, end string
	next     int64
	reread   bool  // made again at the current revision, its start compacted: its request is read once it is
	need     int64 // made at the current revision for a request that needs every change from need on (see made); 0: made
	behind   bool  // made past need: its request is read once its last watch is made (see made)
}

// kind returns the kind of request a watch of role r is for.
func (r role) kind() watchset.Kind {
	switch r {
	case leaderRole, termRole:
		return watchset.Wait
	case rosterRole, rostersRole:
		return watchset.Roster
	}
	return watchset.Gone
}

// pair is what a WatchKey's watches have told of its election: the term
// key's last put, and a put of the leader key held until the term key's
// put of the same transaction comes (a pass writes both).
type pair struct{ term, held *mvccpb.KeyValue }

// Track watches, on the stream, the keys r is about, from revision
// from+1 (see Watch); from 0: from the current one. A roster request
// rides the stream's roster watch if that covers it (see rosterWatch).
// The watches it makes start at the store's current revision, not at
// from+1: etcd tells a watch that starts at or before its current
// revision nothing until its next sync of such watches, up to 100 ms
// later, even the changes made after it was made; a watch that starts
// after it is told each change at once. A request whose watches were
// made past from+1 is read once they are (see made).
func (st *stream) Track(id uint64, r watchset.Request, from uint64) {
	s, el := st.s, r.Known.Election
	start := int64(from) + 1
	if from == 0 {
		start = 0
	}
	st.sweep(time.Now())
	if r.Kind == watchset.Roster && st.ride(id, el, start) || st.adopt(id, r, start) {
		return
	}
	switch r.Kind {
	case watchset.Wait:
		st.watch(id, &watcher{role: leaderRole, election: el, holder: r.Known.Owner, key: s.key(el), need: start})
		st.watch(id, &watcher{role: termRole, election: el, key: s.termKey(el), need: start})
	case watchset.Gone:
		st.watch(id, &watcher{role: aheadRole, election: el, key: s.queuePrefix(el) + r.Known.Owner, need: start})
		if r.Mine.Owner != "" {
			st.watch(id, &watcher{role: mineRole, election: el, key: s.queuePrefix(el) + r.Mine.Owner, need: start})
		}
	case watchset.Roster:
		p := s.rosterPrefix(el)
		st.watch(id, &watcher{role: rosterRole, election: el, key: p, end: clientv3.GetPrefixRangeEnd(p), need: start})
	}
}

// made notes that the server made w, one of a request's watches made at
// the current revision (see Track), at the response's revision. The
// watch tells the changes after that revision; if that is at or after
// need, the changes from need to it went untold, and the request is read
// (Reread) once its last watch is made: one read for all of them.
func (st *stream) made(w *watcher, resp *etcdserverpb.WatchResponse) watchset.Batch {
	rev := resp.Header.GetRevision()
	w.behind = w.behind || rev >= w.need
	w.need = 0
	b := st.created(w, resp, nil)
	ids, ok := st.byReq[w.req]
	if !ok { // withdrawn, or answered and parked: a parked watch is not adopted unless made
		w.behind = false
		return b
	}
	behind := false
	for _, wid := range ids {
		o := st.watches[wid]
		if o.need != 0 {
			return b // the request's other watches are still to be made
		}
		behind = behind || o.behind
	}
	if !behind {
		return b
	}
	for _, wid := range ids {
		st.watches[wid].behind = false
	}
	b.Facts = []watchset.Fact{{What: watchset.Reread, Election: w.election, Revision: uint64(rev), Kind: w.role.kind()}}
	return b
}

// move makes watch w, which the server ended under wid, again under a
// new ID; the roster watch, where it starts is known once it is made.
func (st *stream) move(wid int64, w *watcher) {
	delete(st.watches, wid)
	if w.role == rostersRole {
		st.rosters.wid, st.rosters.from = st.add(w), 0
		return
	}
	st.byReq[w.req] = slices.DeleteFunc(st.byReq[w.req], func(id int64) bool { return id == wid })
	st.watch(w.req, w)
}

// watch adds w, for request id (see add).
func (st *stream) watch(id uint64, w *watcher) {
	w.req = id
	st.byReq[id] = append(st.byReq[id], st.add(w))
}

// add adds w under a new watch ID, which it returns, and makes it on the
// gRPC stream if one is open (else reopened makes it).
func (st *stream) add(w *watcher) int64 {
	st.last++
	st.watches[st.last] = w
	st.create(st.last, w)
	return st.last
}

// create makes watch w under wid on the gRPC stream, if one is open. A
// failed send shows as the stream's end.
func (st *stream) create(wid int64, w *watcher) {
	if st.ws == nil {
		return
	}
	c := &etcdserverpb.WatchCreateRequest{Key: []byte(w.key), StartRevision: w.next, WatchId: wid}
	if w.end != "" {
		c.RangeEnd = []byte(w.end)
	}
	st.out.put(st.ws, &etcdserverpb.WatchRequest{RequestUnion: &etcdserverpb.WatchRequest_CreateRequest{CreateRequest: c}})
}

// Untrack parks answered request id's watches, for a next request of
// its election and kind to adopt, and cancels those parked before under the
// same key or for longer than parkFor (see parkFor): a timer tells the
// Set's goroutine when they are due. A WatchEntry's, and a withdrawn or
// replaced request's, are canceled at once. A request that rides the
// roster watch leaves it (alight).
func (st *stream) Untrack(id uint64, answered bool) {
	st.sweep(time.Now())
	st.alight(id, answered)
	ids := st.byReq[id]
	delete(st.byReq, id)
	if len(ids) == 0 {
		return
	}
	w := st.watches[ids[0]]
	k := parkKey{w.election, w.role.kind()}
	st.cancel(k)
	st.parked[k] = parked{ids: ids, until: time.Now().Add(parkFor)}
	if !answered || k.kind == watchset.Gone { // withdrawn, or never adopted (fits)
		st.cancel(k)
		return
	}
	time.AfterFunc(parkFor, func() { st.hand(st.life, received{sweep: true}) })
}

// cancel cancels the watches parked under k, if any.
func (st *stream) cancel(k parkKey) {
	p, ok := st.parked[k]
	if !ok {
		return
	}
	delete(st.parked, k)
	if k.kind == watchset.Wait {
		delete(st.pairs, k.election)
	}
	for _, wid := range p.ids {
		st.drop(wid)
	}
}

// drop forgets watch wid, and cancels it on the gRPC stream if one is
// open.
func (st *stream) drop(wid int64) {
	delete(st.watches, wid)
	if st.ws != nil {
		st.out.put(st.ws, &etcdserverpb.WatchRequest{RequestUnion: &etcdserverpb.WatchRequest_CancelRequest{
			CancelRequest: &etcdserverpb.WatchCancelRequest{WatchId: wid}}})
	}
}

// facts returns the Facts of evs, events of watch w: a write of the
// waiter's own entry (a pass to it) has its request read (Reread); the
// leader and term keys are paired (leaderEvent); other keys tell their
// own (eventFact).
func (st *stream) facts(w *watcher, evs []*mvccpb.Event) []watchset.Fact {
	var out []watchset.Fact
	for _, ev := range evs {
		switch w.role {
		case mineRole:
			if ev.Type == mvccpb.PUT {
				out = append(out, watchset.Fact{What: watchset.Reread, Election: w.election, Revision: uint64(ev.Kv.ModRevision), Kind: watchset.Gone})
			}
		case termRole:
			out = st.termEvent(out, w.election, ev)
		case leaderRole:
			out = st.leaderEvent(out, w, ev)
		default:
			out = st.s.eventFact(out, (*clientv3.Event)(ev), extras{})
		}
	}
	return out
}

// termEvent notes a write of el's term key, and tells the leader key's
// put it completes, if one is held.
func (st *stream) termEvent(out []watchset.Fact, el string, ev *mvccpb.Event) []watchset.Fact {
	p := st.pairs[el]
	p.term = nil
	if ev.Type == mvccpb.PUT {
		p.term = ev.Kv
	}
	if p.held != nil && p.term != nil && p.term.ModRevision == p.held.ModRevision {
		out = append(out, st.s.facts(putEvents(p.term, p.held))...)
		p.held = nil
	}
	st.pairs[el] = p
	return out
}

// leaderEvent tells a write of w's leader key: a delete, a create, a put
// with the term key written beside it (a pass), or a put by the holder w
// knows (a Proclaim: LeaderWrite). A put by another session is a pass
// whose term key's put is still to come: it is held until then.
func (st *stream) leaderEvent(out []watchset.Fact, w *watcher, ev *mvccpb.Event) []watchset.Fact {
	p, kv := st.pairs[w.election], ev.Kv
	p.held = nil
	switch {
	case ev.Type == mvccpb.PUT && p.term != nil && p.term.ModRevision == kv.ModRevision:
		out = append(out, st.s.facts(putEvents(p.term, kv))...)
	case ev.Type == mvccpb.PUT && kv.Version != 1 && leaseID(kv.Lease) != w.holder:
		p.held = kv
	default:
		out = st.s.eventFact(out, (*clientv3.Event)(ev), extras{})
	}
	st.pairs[w.election] = p
	return out
}

// putEvents returns the puts of a term key and its leader key, in one
// transaction's order.
func putEvents(term, leader *mvccpb.KeyValue) []*clientv3.Event {
	return []*clientv3.Event{{Type: mvccpb.PUT, Kv: term}, {Type: mvccpb.PUT, Kv: leader}}
}
