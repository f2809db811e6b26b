package etcd

import (
	"time"

	"github.com/leasehold/leasehold/internal/watchset"
)

// A request's watches outlive it for parkFor (Untrack parks them): an
// answered waiter asks again for the same keys at once, from the
// revision of its answer, and a parked watch that has told nothing after
// that revision serves the new request as it is (adopt), with no cancel
// and create, which cost a request and a response each. In key mode that
// is every waiter's every answer.
const parkFor = time.Second

// parkKey names parked watches: their election, and their request's kind.
type parkKey struct {
	election string
	kind     watchset.Kind
}

// parked are the watches of an ended request, and when they are canceled.
type parked struct {
	ids   []int64
	until time.Time
}

// adopt gives request id, r, the watches parked for its election and
// kind, if they watch the keys r is about and have told nothing from
// revision start on (start 0: not adopted); it cancels them otherwise, and
// reports whether it adopted them.
func (st *stream) adopt(id uint64, r watchset.Request, start int64) bool {
	k := parkKey{r.Known.Election, r.Kind}
	p, ok := st.parked[k]
	if !ok {
		return false
	}
	if start == 0 || !st.fits(p.ids, r, start) {
		st.cancel(k)
		return false
	}
	delete(st.parked, k)
	for _, wid := range p.ids {
		w := st.watches[wid]
		w.req, w.holder = id, r.Known.Owner
	}
	st.byReq[id] = p.ids
	return true
}

// fits reports whether watches ids serve r from revision start: those of
// a WatchKey or WatchRoster request, which watch the same keys for every
// request of their election, if each is made and has told nothing from
// start on; a WatchEntry request's watch of the entry ahead and its own
// differ from request to request, and are not adopted.
func (st *stream) fits(ids []int64, r watchset.Request, start int64) bool {
	if r.Kind == watchset.Gone {
		return false
	}
	for _, wid := range ids {
		if w := st.watches[wid]; w.next == 0 || w.next > start {
			return false
		}
	}
	return true
}

// sweep cancels the watches parked until before now, and the roster
// watch if it has had no rider since then (see rosterWatch).
func (st *stream) sweep(now time.Time) {
	for k, p := range st.parked {
		if now.After(p.until) {
			st.cancel(k)
		}
	}
	if rw := st.rosters; rw.wid != 0 && len(rw.riders) == 0 && !rw.until.IsZero() && now.After(rw.until) {
		st.endRosters()
	}
}
