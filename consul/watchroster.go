package consul

import (
	"slices"
	"strings"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
)

// The hub's query lists the whole prefix, candidate records included, so
// a set answers roster requests (backends.RosterWatchSet) from the same
// views as its other requests, and a roster that stays as it is costs
// nothing more. A view's index is the prefix's, not the roster's, and
// Consul reports no deletions in a list: so a request is answered by
// comparing the records a view lists with the ones the caller read.

var _ backends.RosterWatchSet = (*watchSet)(nil)

// rosterReq is one election's roster request.
type rosterReq struct {
	tag      uint64
	election string
	known    uint64 // the RosterDigest of the roster the caller read
	after    uint64 // answer only from a view at this index or later
}

// WaitRoster asks to be told when election's roster differs from the one
// whose digest is known, read at revision (see backends.RosterWatchSet):
// answered from the first view read at or after revision that lists other
// records.
func (w *watchSet) WaitRoster(tag uint64, election string, known uint64, revision uint64) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	r := &rosterReq{tag: tag, election: election, known: known, after: revision}
	delete(w.rosters, election)
	if w.rosterAnswered(r) {
		w.mu.Unlock()
		return
	}
	w.rosters[election] = r
	w.mu.Unlock()
	w.hub.want()
}

// StopRoster withdraws election's roster request, if any.
func (w *watchSet) StopRoster(election string) {
	w.mu.Lock()
	delete(w.rosters, election)
	w.mu.Unlock()
}

// rosterAnswered answers r if the view was read at or after its index and
// lists other records than r knows, and reports whether it did. w.mu is
// held.
func (w *watchSet) rosterAnswered(r *rosterReq) bool {
	v := w.view
	if v.seq == 0 || v.index < r.after {
		return false
	}
	s := w.hub.s
	if backends.RosterDigest(s.roster(r.election, v.under(s.rosterPrefix(r.election)))) == r.known {
		return false
	}
	w.answerRoster(r, nil)
	return true
}

// answerRoster hands r's answer to run: the roster changed, or err. w.mu
// is held.
func (w *watchSet) answerRoster(r *rosterReq, err error) {
	w.out = append(w.out, backends.Change{Election: r.election, Tag: r.tag,
		Record: backends.Record{Election: r.election}, Roster: true, Err: err})
	w.poke()
}

// applyRosters answers the roster requests the view v tells, or ends
// them all with err. w.mu is held.
func (w *watchSet) applyRosters(v view, err error) {
	for el, r := range w.rosters {
		switch {
		case err != nil:
			w.answerRoster(r, err)
		case v.back: // Consul's index went back: compare from this view
			r.after = 0
			fallthrough
		default:
			if !w.rosterAnswered(r) {
				continue
			}
		}
		delete(w.rosters, el)
	}
}

// under returns the view's pairs whose keys begin with prefix.
func (v view) under(prefix string) api.KVPairs {
	i, _ := slices.BinarySearchFunc(v.pairs, prefix, func(p *api.KVPair, k string) int { return strings.Compare(p.Key, k) })
	j := i
	for j < len(v.pairs) && strings.HasPrefix(v.pairs[j].Key, prefix) {
		j++
	}
	return v.pairs[i:j]
}
