package etcd

import (
	"strings"

	"github.com/leasehold/leasehold/backends"
)

// The set's stream watches the whole prefix, so it carries every roster's
// records too (backends.RosterWatchSet): a roster request is answered by
// the events on its election's records, and costs nothing while they do
// not change.

var _ backends.RosterWatchSet = (*watchSet)(nil)

// maxRosterSeen bounds watchSet.rosterSeen, which elections that come and
// go would otherwise grow for as long as the stream lasts.
const maxRosterSeen = 4096

// rosterReq is one election's roster request.
type rosterReq struct {
	tag      uint64
	election string
	rev      uint64 // the revision the caller read the roster at
}

// WaitRoster asks to be told when election's roster changes after
// revision (see backends.RosterWatchSet); the stream's events tell, and
// known is not needed.
func (w *watchSet) WaitRoster(tag uint64, election string, _ uint64, revision uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	r := &rosterReq{tag: tag, election: election, rev: revision}
	w.rosters[election] = r
	w.freshRosters = append(w.freshRosters, r)
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// StopRoster withdraws election's roster request, if any.
func (w *watchSet) StopRoster(election string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.rosters, election)
}

// coverRosters answers the roster requests made since the last look whose
// roster the stream saw change after their revision, once the stream has
// a position. One whose revision is before start (the stream began, or
// rosterSeen was emptied) is answered at once, possibly early: the
// changes between are unknown. w.mu is held.
func (w *watchSet) coverRosters() {
	for _, r := range w.freshRosters {
		if w.rosters[r.election] == r && (r.rev < w.start || w.rosterSeen[r.election] > r.rev) {
			w.answerRoster(r, nil)
		}
	}
	w.freshRosters = nil
}

// rosterEvent notes an event at rev on key, if it is a roster record's,
// and answers its election's roster request if rev is after its revision.
// It reports whether key is a record's. w.mu is held.
func (w *watchSet) rosterEvent(key string, rev uint64) bool {
	rest, ok := strings.CutPrefix(key, w.s.prefix+backends.RosterSegment+"/")
	if !ok {
		return false
	}
	el, _, ok := strings.Cut(rest, "/~") // no election name holds '~'
	if !ok {
		return true
	}
	if _, ok := w.rosterSeen[el]; !ok && len(w.rosterSeen) >= maxRosterSeen { // forget: later requests from before rev are answered early
		clear(w.rosterSeen)
		w.start = rev
	}
	w.rosterSeen[el] = max(w.rosterSeen[el], rev)
	if r := w.rosters[el]; r != nil && rev > r.rev {
		w.answerRoster(r, nil)
	}
	return true
}

// answerRoster ends the roster request r with err (nil: the roster
// changed). w.mu is held.
func (w *watchSet) answerRoster(r *rosterReq, err error) {
	delete(w.rosters, r.election)
	w.out = append(w.out, backends.Change{Election: r.election, Tag: r.tag,
		Record: backends.Record{Election: r.election}, Roster: true, Err: err})
}
