package consul

import (
	"slices"
	"strings"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
)

// request is one pending request of a watchSet.
type request struct {
	tag   uint64
	known backends.Record // Wait: the known state; WaitGone: the entry
	key   string          // the KV key it is about
	gone  bool            // a WaitGone
	lead  string          // WaitGone: the election's leader key
	since uint64          // WaitGone: answer for a pass after this index only (see watchSet.answer)
	after uint64          // answer only from a view at this index or later
}

// view is one answer of the hub's query: the keys under the prefix,
// sorted, as read at index. The zero view has read nothing. Views are
// numbered in the order read (seq); back says that Consul's index went
// back at this view.
type view struct {
	pairs api.KVPairs
	index uint64
	seq   uint64
	back  bool
}

// next returns the view of a list's answer, read after v.
func (v view) next(l listing) view {
	cmp := func(a, b *api.KVPair) int { return strings.Compare(a.Key, b.Key) }
	if !slices.IsSortedFunc(l.pairs, cmp) {
		slices.SortFunc(l.pairs, cmp)
	}
	return view{pairs: l.pairs, index: l.index, seq: v.seq + 1, back: v.seq > 0 && l.index < v.index}
}

// get returns the pair of key, or nil.
func (v view) get(key string) *api.KVPair {
	i, ok := slices.BinarySearchFunc(v.pairs, key, func(p *api.KVPair, k string) int { return strings.Compare(p.Key, k) })
	if !ok {
		return nil
	}
	return v.pairs[i]
}

// answer returns r's answer if the view tells one: it was read at or
// after r's index and shows a state that differs from r's (Wait), or the
// entry gone or rewritten since it was read, as by a Nudge (WaitGone; see
// unchanged).
func (v view) answer(r *request) (backends.Change, bool) {
	if v.seq == 0 || v.index < r.after {
		return backends.Change{}, false
	}
	el := r.known.Election
	p := v.get(r.key)
	if r.gone {
		prefix := strings.TrimSuffix(r.key, r.known.Owner)
		if v.passedBehind(r, prefix) { // the key's state: see backends.Change
			return backends.Change{Election: el, Tag: r.tag, Record: record(el, v.get(r.lead), v.index)}, true
		}
		return backends.Change{Election: el, Tag: r.tag, Record: r.known}, !unchanged(p, prefix, r.known)
	}
	rec := record(el, p, v.index)
	return backends.Change{Election: el, Tag: r.tag, Record: rec}, rec.Differs(r.known)
}

// passedBehind reports whether WaitGone r's leader key was locked, after
// r.since (the set's last answer to a pass in the election), by a
// session whose entry waits in the queue at prefix behind r's entry, as
// after a Pass to a candidate in line. The WaitGone of the entry just
// ahead of the target's answers then, with the key's state, so the
// target, which watches that entry and not the key, learns of the pass
// (see backends.Passer). Those further ahead answer too, once: an early
// answer, which the contract allows. So does a set's first WaitGone in
// an election whose holder was passed the key before it. A candidate
// that created the key at the head of the line has no entry ahead of its
// own, and wakes no one.
func (v view) passedBehind(r *request, prefix string) bool {
	k := v.get(r.lead)
	if k == nil || k.Session == "" || k.ModifyIndex <= r.since {
		return false
	}
	q := v.get(prefix + k.Session)
	return isEntry(q, prefix) && q.CreateIndex > r.known.Token
}

// apply takes the hub's latest view, or the error of its query, and
// reports whether requests are still pending. A view older than the one
// the set has is ignored; an error ends every pending request.
func (w *watchSet) apply(v view, err error) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.closed:
		return false
	case err != nil:
		for el, r := range w.reqs {
			w.out = append(w.out, backends.Change{Election: el, Tag: r.tag, Err: err})
		}
		clear(w.reqs)
		w.applyRosters(v, err)
		w.poke()
		return false
	case v.seq <= w.view.seq:
		return len(w.reqs) > 0 || len(w.rosters) > 0
	}
	w.view = v
	for _, r := range w.reqs {
		if v.back { // Consul's index went back: compare from this view
			r.after = 0
		}
		w.take(r)
	}
	w.applyRosters(v, nil)
	return len(w.reqs) > 0 || len(w.rosters) > 0
}
