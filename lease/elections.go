package lease

// The elector's bookkeeping of its elections: one entry per election
// while it has anything of it in flight or held, in one table. The core
// decides what is done; an entry only carries what doing it needs. Owned
// by the loop goroutine.

// election is what the elector has in flight or holds of one election.
// Its entry is dropped once every field is nil (tidy): a held election
// costs the elector one entry, and one it has left costs it nothing.
type election struct {
	calls   *userCalls   // the users' calls waiting on it (calls.go)
	held    *Leadership  // the leadership held
	parting *Leadership  // an ended leadership whose key is still being let go (handover.go)
	watch   *watch       // the Get, Wait or WaitGone in flight (watchset.go)
	roster  *rosterWatch // its roster, followed in the WatchSet while held (rosterset.go)
}

// idle reports whether nothing of the election is in flight or held.
func (el *election) idle() bool {
	return el.calls == nil && el.held == nil && el.parting == nil && el.watch == nil && el.roster == nil
}

// entry returns the entry of name, made if needed, for its caller to
// put what is in flight or held in.
func (e *LeaseElector) entry(name string) *election {
	el := e.elections[name]
	if el == nil {
		el = &election{}
		e.elections[name] = el
	}
	return el
}

// tidy drops the entry of name if nothing of it is in flight or held.
func (e *LeaseElector) tidy(name string) {
	if el := e.at(name); el != nil && el.idle() {
		delete(e.elections, name)
	}
}

// at returns the entry of name, or nil.
func (e *LeaseElector) at(name string) *election { return e.elections[name] }

// of returns what is in flight or held of name: a copy of its entry,
// or the zero election if it has none.
func (e *LeaseElector) of(name string) election {
	if el := e.at(name); el != nil {
		return *el
	}
	return election{}
}

// holds reports whether l is the leadership of its election held.
func (e *LeaseElector) holds(l *Leadership) bool { return l != nil && e.of(l.Election).held == l }

// forget applies f, which clears what has ended, to the entry of name,
// if it has one, and drops the entry if nothing is left in it.
func (e *LeaseElector) forget(name string, f func(el *election)) {
	if el := e.at(name); el != nil {
		f(el)
		e.tidy(name)
	}
}
