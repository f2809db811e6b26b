package etcd

import (
	"context"
	"errors"
	"fmt"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
)

// readBatch is the most requests in one covering read: four gets each
// (the key, the election's handover marker, its term key and its leader
// key), within etcd's default --max-txn-ops of 128.
const readBatch = 32

// readResult is a covering read's outcome: the requests read, and for
// each at revision rev (nil: absent) its key's state, its election's
// handover marker, term key and leader key (the key itself for a Wait),
// or err.
type readResult struct {
	reqs    []*request
	kvs     []*mvccpb.KeyValue
	markers []*mvccpb.KeyValue
	terms   []*mvccpb.KeyValue
	leaders []*mvccpb.KeyValue
	rev     uint64
	err     error
}

// prepare opens the stream if requests wait and none is open, covers the
// requests made since, and starts a read if one is due and none is in
// flight.
func (w *watchSet) prepare() {
	w.mu.Lock()
	open := w.wch == nil && (len(w.reqs) > 0 || len(w.rosters) > 0)
	w.mu.Unlock()
	if open {
		w.open()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pos != 0 {
		w.cover()
		w.coverRosters()
	}
	if !w.reading && len(w.toRead) > 0 {
		n := min(len(w.toRead), readBatch)
		batch := w.toRead[:n:n]
		if w.toRead = w.toRead[n:]; len(w.toRead) == 0 {
			w.toRead = nil // let the array go
		}
		w.reading = true
		go w.read(batch)
	}
}

// open opens the stream at the current revision, requiring a leader, on a
// gRPC stream of its own (see streams). It does so without w.mu: clientv3's
// Watch returns only once the server has created the watch (or the set is
// closed).
func (w *watchSet) open() {
	ctx, stop := context.WithCancel(w.s.streams.own(w.ctx))
	wch := w.s.c.Watch(ctx, w.s.prefix, clientv3.WithPrefix(), clientv3.WithCreatedNotify())
	w.mu.Lock()
	w.wch, w.stop, w.pos = wch, stop, 0
	w.mu.Unlock()
}

// cover sorts the requests made since the last look, once the stream has
// a position: a request from at or after it needs nothing more, as every
// later event is still to come; one from before it needs a read. So does
// every WaitGone: a pass to a session behind its entry may precede it
// (see wakePass). w.mu is held.
func (w *watchSet) cover() {
	for _, r := range w.fresh {
		if w.current(r) && (r.known.Revision < w.pos || r.gone) {
			w.toRead = append(w.toRead, r)
		}
	}
	w.fresh = nil
}

// read gets the keys of reqs in one transaction and hands the result to
// run.
func (w *watchSet) read(reqs []*request) {
	ops := make([]clientv3.Op, 0, 4*len(reqs))
	for _, r := range reqs {
		el := r.known.Election
		ops = append(ops, clientv3.OpGet(r.key), clientv3.OpGet(w.s.markerKey(el)), clientv3.OpGet(w.s.termKey(el)), clientv3.OpGet(w.s.key(el)))
	}
	n := len(reqs)
	res := readResult{reqs: reqs, kvs: make([]*mvccpb.KeyValue, n), markers: make([]*mvccpb.KeyValue, n),
		terms: make([]*mvccpb.KeyValue, n), leaders: make([]*mvccpb.KeyValue, n)}
	resp, err := w.s.c.Txn(w.ctx).Then(ops...).Commit()
	if err != nil {
		res.err = w.streamErr("watch set read", err)
	} else {
		res.rev = uint64(resp.Header.Revision)
		for i := range reqs {
			rs := resp.Responses[4*i : 4*i+4]
			res.kvs[i], res.markers[i], res.terms[i], res.leaders[i] = only(rs[0]), only(rs[1]), only(rs[2]), only(rs[3])
		}
	}
	w.reads <- res
}

// only returns the key a get found, or nil.
func only(r *etcdserverpb.ResponseOp) *mvccpb.KeyValue {
	if kvs := r.GetResponseRange().Kvs; len(kvs) == 1 {
		return kvs[0]
	}
	return nil
}

// onRead answers the requests a read shows changed, and marks the others
// as covered up to the read.
func (w *watchSet) onRead(res readResult) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reading = false
	for i, r := range res.reqs {
		switch {
		case !w.current(r):
		case res.err != nil:
			w.answer(r, backends.Record{}, res.err)
		case r.gone:
			if !w.wake(r, parseMarker(res.markers[i])) && !w.wakePass(r, res.leaders[i], res.terms[i], res.rev) {
				w.match(r, res.kvs[i], res.rev, res.kvs[i] == nil, "", 0)
			}
		case res.kvs[i] == nil:
			w.match(r, nil, res.rev, true, parseMarker(res.markers[i]).to, 0)
		default:
			w.match(r, res.kvs[i], res.rev, false, "", tokenOf(res.kvs[i], res.terms[i]))
		}
	}
}

// onStream handles one response of the stream, or its end.
func (w *watchSet) onStream(resp clientv3.WatchResponse, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case !ok || resp.Err() != nil:
		w.broken(resp, ok)
	case resp.Created:
		w.pos = uint64(resp.Header.Revision)
		w.start = w.pos
	default:
		x := w.extras(resp.Events)
		for el, m := range x.markers {
			if r := w.reqs[el]; r != nil && r.gone {
				w.wake(r, m)
			}
		}
		for el, term := range x.terms {
			if r := w.reqs[el]; r != nil && r.gone {
				w.wakePass(r, x.leaders[el], term, uint64(term.ModRevision))
			}
		}
		for _, ev := range resp.Events {
			w.onEvent(ev, x)
		}
	}
}

// onEvent matches ev, one event of a response whose extras are x, with
// the request on its key, if any. A put of a leader key that is neither
// its first nor comes with its term key, and is not the known holder's
// (a Proclaim: same term, same token), has a token the events cannot
// tell: a read covers the request. w.mu is held.
func (w *watchSet) onEvent(ev *clientv3.Event, x extras) {
	rev := uint64(ev.Kv.ModRevision)
	w.pos = max(w.pos, rev)
	if w.rosterEvent(string(ev.Kv.Key), rev) {
		return
	}
	r, found := w.byKey[string(ev.Kv.Key)]
	switch {
	case !found || past(ev, r.seen):
	case r.gone:
		w.match(r, ev.Kv, rev, ev.Type == clientv3.EventTypeDelete, "", 0)
	case ev.Type == clientv3.EventTypeDelete:
		m := x.markers[r.known.Election]
		if m.rev != rev {
			m = marker{} // put by another transaction
		}
		w.match(r, nil, rev, true, m.to, 0)
	default:
		token := uint64(ev.Kv.CreateRevision)
		term := x.terms[r.known.Election]
		switch {
		case term != nil && uint64(term.ModRevision) == rev:
			token = tokenOf(ev.Kv, term)
		case ev.Kv.Version == 1:
		case r.known.Exists() && r.known.Owner == leaseID(ev.Kv.Lease):
			token = r.known.Token
		default:
			w.toRead = append(w.toRead, r)
			return
		}
		w.match(r, ev.Kv, rev, false, "", token)
	}
}

// match answers r if kv (deleted: absent), the state of its key at rev,
// differs from what r knows (for a queue entry: gone, or nudged since r
// last looked), and otherwise marks r as covered up to rev. An absent
// leader key carries to, the handover marker's target, if any; a present
// one has token (see tokenOf). w.mu is held.
func (w *watchSet) match(r *request, kv *mvccpb.KeyValue, rev uint64, deleted bool, to string, token uint64) {
	if r.gone {
		if deleted || entryMoved(r.known, kv, r.seen) {
			w.answer(r, r.known, nil)
			return
		}
		r.seen = max(r.seen, rev)
		return
	}
	rec := backends.Record{Election: r.known.Election, Revision: rev}
	if !deleted {
		fill(&rec, kv, nil)
		rec.Token = token
	} else {
		rec.To = to
	}
	if rec.Differs(r.known) {
		w.answer(r, rec, nil)
		return
	}
	r.seen = max(r.seen, rev)
}

// wake answers the queue-entry request r with the absent key and m's
// target, and reports true, if the marker m was put after r last looked
// and names a target whose entry waits behind r's (see
// backends.MarkedDeleter). w.mu is held.
func (w *watchSet) wake(r *request, m marker) bool {
	if m.to == "" || m.rev <= r.seen || m.entry <= r.known.Token || !w.current(r) {
		return false
	}
	w.answer(r, backends.Record{Election: r.known.Election, Revision: m.rev, To: m.to}, nil)
	return true
}

// broken ends the stream and every request with the stream's error; the
// next request opens a new stream. w.mu is held.
func (w *watchSet) broken(resp clientv3.WatchResponse, ok bool) {
	w.stop()
	w.wch, w.stop, w.pos, w.toRead, w.fresh = nil, nil, 0, nil, nil
	cause := fmt.Errorf("watch closed")
	if ok {
		cause = resp.Err()
	}
	err := w.streamErr("watch set", cause)
	for _, r := range w.reqs {
		w.answer(r, backends.Record{}, err)
	}
	for _, r := range w.rosters {
		w.answerRoster(r, err)
	}
	w.freshRosters, w.rosterSeen, w.start = nil, map[string]uint64{}, 0
}

// streamErr classifies an error of the stream or of a covering read. One
// of no class is reported as ErrUnavailable: the request did nothing, and
// the caller reads and asks again.
func (w *watchSet) streamErr(op string, err error) error {
	classified := w.s.classify(op, "", w.ctx, err)
	for _, class := range []error{backends.ErrCompacted, backends.ErrPermission, backends.ErrUnavailable, backends.ErrCanceled} {
		if errors.Is(classified, class) {
			return classified
		}
	}
	return fmt.Errorf("etcd: %s: %w: %w", op, backends.ErrUnavailable, err)
}
