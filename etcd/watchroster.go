package etcd

import (
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/watchset"
)

// A stream's WatchRoster requests share one watch, of the roster segment
// of the adapter's prefix (every election's records), not one each: a
// leader follows the roster of every election it holds, and a watch per
// held election cost a watch create on etcd and a watcher here. Its
// events tell RosterWrites for their election (keys.Split), which the Set
// ignores for elections it has no request of. It is opened by the first
// roster request tracked, from that request's revision on, and so covers
// every later request that knows a revision at or after its start (made
// at the store's current revision, as every watch, and its riders read
// if that was past its start: see rostersMade); one
// from before that gets a watch of its own (rosterRole), so correctness
// never rests on its having started early enough. It ends when its last
// rider is withdrawn, or parkFor after its last rider was answered with no
// new rider since: a Set whose process leads nothing then hears no
// roster's writes (a hand-over deletes one). A reopened gRPC stream makes
// it again from where it was, as every watch; one whose start was
// compacted is made again at the current revision, and every request it
// serves is read once it is (Reread).
type rosterWatch struct {
	wid    int64             // its watch ID; 0: none
	from   int64             // it has told every change from this revision on; 0: not known until it is made
	riders map[uint64]string // the requests it serves: their election, by ID
	until  time.Time         // with no riders: when it ends (see sweep)
}

// ride has roster request id, of election el, served by the roster watch
// if it covers changes from revision start on (0: the current revision),
// opening it first if none is open, and reports whether it does. The
// election's parked watches of its own are canceled: the roster watch
// serves it from now on.
func (st *stream) ride(id uint64, el string, start int64) bool {
	rw := &st.rosters
	if rw.wid == 0 {
		p := st.s.prefix + backends.RosterSegment + "/"
		rw.wid = st.add(&watcher{role: rostersRole, key: p, end: clientv3.GetPrefixRangeEnd(p), need: start})
		rw.from, rw.riders = start, map[uint64]string{}
	}
	if start != 0 && (rw.from == 0 || start < rw.from) {
		return false
	}
	st.cancel(parkKey{el, watchset.Roster})
	rw.riders[id] = el
	rw.until = time.Time{}
	return true
}

// alight ends request id's ride of the roster watch, if it rides it, and
// ends the watch with its last rider if that was withdrawn; answered,
// the watch is kept for parkFor, for the election's next request.
func (st *stream) alight(id uint64, answered bool) {
	rw := &st.rosters
	if _, ok := rw.riders[id]; !ok {
		return
	}
	delete(rw.riders, id)
	switch {
	case len(rw.riders) > 0:
	case !answered:
		st.endRosters()
	default:
		rw.until = time.Now().Add(parkFor)
		time.AfterFunc(parkFor, func() { st.hand(st.life, received{sweep: true}) })
	}
}

// endRosters cancels the roster watch.
func (st *stream) endRosters() {
	st.drop(st.rosters.wid)
	st.rosters = rosterWatch{}
}

// rostersMade notes that the roster watch w was made at revision rev:
// it tells every change from rev+1 on, if it did not know where it
// started. Made again after a compaction (reread), or made, at the
// current revision as every watch (see Track), past the revision it
// was opened from (need), it returns a Reread of each request it serves.
func (st *stream) rostersMade(w *watcher, rev int64) []watchset.Fact {
	rw := &st.rosters
	behind := w.need != 0 && rev >= w.need
	w.need = 0
	if rw.from == 0 || behind { // a later request from before rev+1 needs a watch of its own
		rw.from = rev + 1
	}
	if !w.reread && !behind {
		return nil
	}
	facts := make([]watchset.Fact, 0, len(rw.riders))
	for _, el := range rw.riders {
		facts = append(facts, watchset.Fact{What: watchset.Reread, Election: el, Revision: uint64(rev), Kind: watchset.Roster})
	}
	return facts
}
