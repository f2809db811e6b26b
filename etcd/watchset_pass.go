package etcd

import (
	"strings"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/keys"
)

// extras are what one response's events put beside the leader keys, by
// election: handover markers, term keys, and the leader keys themselves.
// A marker is put in the transaction that deletes its leader key, a term
// key in the one that creates or passes it, so one response holds both
// events.
type extras struct {
	markers map[string]marker
	terms   map[string]*mvccpb.KeyValue
	leaders map[string]*mvccpb.KeyValue
}

// extras gathers the extras of evs, and forgets the passes answered
// (passWoke) of the leader keys they delete. w.mu is held.
func (w *watchSet) extras(evs []*clientv3.Event) extras {
	var x extras
	mpre, tpre := w.s.markerKey(""), w.s.termKey("")
	for _, ev := range evs {
		k := string(ev.Kv.Key)
		if ev.Type != clientv3.EventTypePut {
			if el, ok := strings.CutPrefix(k, w.s.prefix); ok && !strings.HasPrefix(el, "~") {
				delete(w.passWoke, el) // the term, and its pass, ended
			}
			continue
		}
		if el, ok := strings.CutPrefix(k, mpre); ok {
			x.markers = put(x.markers, el, parseMarker(ev.Kv))
		} else if el, ok := strings.CutPrefix(k, tpre); ok {
			x.terms = put(x.terms, el, ev.Kv)
		} else if el, ok := strings.CutPrefix(k, w.s.prefix); ok && !strings.HasPrefix(el, "~") {
			x.leaders = put(x.leaders, el, ev.Kv)
		}
	}
	return x
}

// put sets m[k] = v, making m if it is nil.
func put[V any](m map[string]V, k string, v V) map[string]V {
	if m == nil {
		m = map[string]V{}
	}
	m[k] = v
	return m
}

// wakePass answers the queue-entry request r with the leader key kv,
// read with its term key term at rev, and reports true, if the key was
// passed (the term key names the target, see Passer) to a session whose
// entry waits behind r's, or that the pass gave no entry, by a pass this
// set has not answered yet: once per set and pass, even if the pass came
// before r (a target that missed it would wait behind an entry that waits
// for the key). A target passed the key with no entry may have joined
// the line since, and the term key cannot tell where: r is woken early,
// and looks again. w.mu is held.
func (w *watchSet) wakePass(r *request, kv, term *mvccpb.KeyValue, rev uint64) bool {
	if kv == nil || term == nil || !w.current(r) {
		return false
	}
	to, entry, ok := keys.ParseMarker(term.Value)
	el, p := r.known.Election, uint64(term.ModRevision)
	if !ok || leaseID(kv.Lease) != to || tokenOf(kv, term) != p || (entry != 0 && entry <= r.known.Token) || p <= w.passWoke[el] {
		return false
	}
	if w.passWoke == nil {
		w.passWoke = map[string]uint64{}
	}
	w.passWoke[el] = p
	rec := backends.Record{Election: el, Revision: rev}
	fill(&rec, kv, term)
	w.answer(r, rec, nil)
	return true
}
