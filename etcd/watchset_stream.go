package etcd

import (
	"context"
	"errors"
	"fmt"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
)

// readBatch is the most gets in one covering read: etcd's default
// --max-txn-ops.
const readBatch = 128

// readResult is a covering read's outcome: the requests read, their keys'
// state (nil: absent) at revision rev, or err.
type readResult struct {
	reqs []*request
	kvs  []*mvccpb.KeyValue
	rev  uint64
	err  error
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
	ops := make([]clientv3.Op, len(reqs))
	for i, r := range reqs {
		ops[i] = clientv3.OpGet(r.key)
	}
	res := readResult{reqs: reqs, kvs: make([]*mvccpb.KeyValue, len(reqs))}
	resp, err := w.s.c.Txn(w.ctx).Then(ops...).Commit()
	if err != nil {
		res.err = w.streamErr("watch set read", err)
	} else {
		res.rev = uint64(resp.Header.Revision)
		for i, rr := range resp.Responses {
			if kvs := rr.GetResponseRange().Kvs; len(kvs) == 1 {
				res.kvs[i] = kvs[0]
			}
		}
	}
	w.reads <- res
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
			w.match(r, res.kvs[i], res.rev, res.kvs[i] == nil)
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
		for _, ev := range resp.Events {
			w.pos = max(w.pos, uint64(ev.Kv.ModRevision))
			if r, found := w.byKey[string(ev.Kv.Key)]; found && !past(ev, r.seen) {
				w.match(r, ev.Kv, uint64(ev.Kv.ModRevision), ev.Type == clientv3.EventTypeDelete)
			}
		}
	}
}

// match answers r if kv (deleted: absent), the state of its key at rev,
// differs from what r knows (for a queue entry: gone, or nudged since r
// last looked), and otherwise marks r as covered up to rev.
// w.mu is held.
func (w *watchSet) match(r *request, kv *mvccpb.KeyValue, rev uint64, deleted bool) {
	if r.gone {
		if deleted || entryMoved(r.known, kv, r.seen) {
			w.answer(r, r.known, nil)
			return
		}
	} else {
		rec := backends.Record{Election: r.known.Election, Revision: rev}
		if !deleted {
			fill(&rec, kv)
		}
		if rec.Differs(r.known) {
			w.answer(r, rec, nil)
			return
		}
	}
	r.seen = max(r.seen, rev)
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
