package etcd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
)

// readBatch is the most requests in one covering read: two gets each
// (the key and the election's handover marker), within etcd's default
// --max-txn-ops of 128.
const readBatch = 64

// readResult is a covering read's outcome: the requests read, their keys'
// state and their elections' markers (nil: absent) at revision rev, or
// err.
type readResult struct {
	reqs    []*request
	kvs     []*mvccpb.KeyValue
	markers []*mvccpb.KeyValue
	rev     uint64
	err     error
}

// prepare opens the stream if requests wait and none is open, covers the
// requests made since, and starts a read if one is due and none is in
// flight.
func (w *watchSet) prepare() {
	w.mu.Lock()
	open := w.wch == nil && len(w.reqs) > 0
	w.mu.Unlock()
	if open {
		w.open()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pos != 0 {
		w.cover()
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

// open opens the stream at the current revision, requiring a leader. It
// does so without w.mu: clientv3's Watch returns only once the server has
// created the watch (or the set is closed).
func (w *watchSet) open() {
	ctx, stop := context.WithCancel(requireLeader(w.ctx))
	wch := w.s.c.Watch(ctx, w.s.prefix, clientv3.WithPrefix(), clientv3.WithCreatedNotify())
	w.mu.Lock()
	w.wch, w.stop, w.pos = wch, stop, 0
	w.mu.Unlock()
}

// cover sorts the requests made since the last look, once the stream has
// a position: a request from at or after it needs nothing more, as every
// later event is still to come; one from before it needs a read. w.mu is
// held.
func (w *watchSet) cover() {
	for _, r := range w.fresh {
		if w.current(r) && r.known.Revision < w.pos {
			w.toRead = append(w.toRead, r)
		}
	}
	w.fresh = nil
}

// read gets the keys of reqs in one transaction and hands the result to
// run.
func (w *watchSet) read(reqs []*request) {
	ops := make([]clientv3.Op, 0, 2*len(reqs))
	for _, r := range reqs {
		ops = append(ops, clientv3.OpGet(r.key), clientv3.OpGet(w.s.markerKey(r.known.Election)))
	}
	res := readResult{reqs: reqs, kvs: make([]*mvccpb.KeyValue, len(reqs)), markers: make([]*mvccpb.KeyValue, len(reqs))}
	resp, err := w.s.c.Txn(w.ctx).Then(ops...).Commit()
	if err != nil {
		res.err = w.streamErr("watch set read", err)
	} else {
		res.rev = uint64(resp.Header.Revision)
		for i := range reqs {
			res.kvs[i], res.markers[i] = only(resp.Responses[2*i]), only(resp.Responses[2*i+1])
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
		default:
			m := parseMarker(res.markers[i])
			if !r.gone || !w.wake(r, m) {
				w.match(r, res.kvs[i], res.rev, res.kvs[i] == nil, m.to)
			}
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
	default:
		markers := w.markers(resp.Events)
		for el, m := range markers {
			if r := w.reqs[el]; r != nil && r.gone {
				w.wake(r, m)
			}
		}
		for _, ev := range resp.Events {
			rev := uint64(ev.Kv.ModRevision)
			w.pos = max(w.pos, rev)
			if r, found := w.byKey[string(ev.Kv.Key)]; found && !past(ev, r.seen) {
				m := markers[r.known.Election]
				if m.rev != rev {
					m = marker{} // put by another transaction
				}
				w.match(r, ev.Kv, rev, ev.Type == clientv3.EventTypeDelete, m.to)
			}
		}
	}
}

// markers returns the handover markers put by evs, by election. A marker
// is put in the transaction that deletes its leader key, so one response
// holds both events.
func (w *watchSet) markers(evs []*clientv3.Event) map[string]marker {
	var ms map[string]marker
	pre := w.s.markerKey("")
	for _, ev := range evs {
		if el, ok := strings.CutPrefix(string(ev.Kv.Key), pre); ok && ev.Type == clientv3.EventTypePut {
			if ms == nil {
				ms = map[string]marker{}
			}
			ms[el] = parseMarker(ev.Kv)
		}
	}
	return ms
}

// match answers r if kv (deleted: absent), the state of its key at rev,
// differs from what r knows (for a queue entry: gone, or nudged since r
// last looked), and otherwise marks r as covered up to rev. An absent
// leader key carries to, the handover marker's target, if any. w.mu is
// held.
func (w *watchSet) match(r *request, kv *mvccpb.KeyValue, rev uint64, deleted bool, to string) {
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
		fill(&rec, kv)
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
