package core

import (
	"maps"
	"time"
)

// An observer (package lease's Observe and ObserveCandidates) follows a
// state with a Follower and tells its reader of it. Which of the states
// it reads it sends is decided here: the first, and then only one that
// differs from the last sent, so that a reader never gets the same state
// twice. Like the Follower, these do no I/O and read no clock, and are
// not safe for concurrent use.

// LeaderView is what an observer tells of an election's leader key.
type LeaderView struct {
	// Token is the key's token: its term. 0: no leader.
	Token uint64
	// Value is what the leader proclaimed; it changes within a term.
	Value string
	// Since is when the term began, as the key says, or when the observer
	// first saw it. Nothing here decides by it.
	Since time.Time
}

// LeaderSends decides which states of a leader key an observer sends.
// The zero value has sent nothing.
type LeaderSends struct {
	last LeaderView
	sent bool
}

// Next returns what to send for v, the state just read, and true; or
// false if v is the state last sent: the first state is sent, and then
// only a new term (Token) or a new Value in the same term. A new Value
// keeps the Since of the term it belongs to.
func (s *LeaderSends) Next(v LeaderView) (LeaderView, bool) {
	if s.sent && v.Token == s.last.Token {
		if v.Value == s.last.Value {
			return LeaderView{}, false
		}
		v.Since = s.last.Since
	}
	s.last, s.sent = v, true
	return v, true
}

// ListSends decides which candidate lists (List) an observer sends. The
// zero value has sent nothing.
type ListSends struct {
	last []Listed
	sent bool
}

// Next reports whether to send l, the list just read: the first list is
// sent, and then only one that differs from the last sent in any
// candidate or any field of one (what is Shown by content: labels as a
// set, Since as an instant). It keeps l: the caller does not change it after.
func (s *ListSends) Next(l []Listed) bool {
	if s.sent && len(l) == len(s.last) && sameLists(l, s.last) {
		return false
	}
	s.last, s.sent = l, true
	return true
}

func sameLists(a, b []Listed) bool {
	for i := range a {
		if !sameListed(a[i], b[i]) {
			return false
		}
	}
	return true
}

func sameListed(a, b Listed) bool {
	if !sameShown(a.Shown, b.Shown) {
		return false
	}
	a.Shown = b.Shown
	return a == b
}

func sameShown(a, b *Shown) bool {
	if a == nil || b == nil {
		return a == b
	}
	return maps.Equal(a.Labels, b.Labels) && a.Since.Equal(b.Since)
}
