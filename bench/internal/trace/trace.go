// Package trace records the store calls of leasehold electors: a
// backends.Driver wrapper that logs every call (and every watch
// notification) with its start and end, so that a hand-off's latency can
// be split into the round trips it is made of. It is for profiling the
// benchmark's hand-offs, not for production.
package trace

import (
	"sync"
	"time"
)

// Event is one store call, or one notification (Start == End).
type Event struct {
	// Who names the elector whose store made the call.
	Who string
	// Op names the call: "Create", "Enqueue", "notify key", ….
	Op string
	// Start and End are when the call began and returned.
	Start, End time.Time
	// Err is the call's error, if any.
	Err error
}

// Recorder takes each call of a wrapped store (Wrap) as it returns, and
// each notification: who made it, the operation's name (see Event.Op), when
// it began, and its error. It must be safe for concurrent use.
type Recorder interface {
	Record(who, op string, start time.Time, err error)
}

// Log collects events from any number of wrapped stores. It is safe for
// concurrent use.
type Log struct {
	mu     sync.Mutex
	events []Event
}

// Record records an event.
func (l *Log) Record(who, op string, start time.Time, err error) {
	l.mu.Lock()
	l.events = append(l.events, Event{Who: who, Op: op, Start: start, End: time.Now(), Err: err})
	l.mu.Unlock()
}

// Between returns the events that overlap [from, to) (a wait begun
// before from and ended in it included), in order of their start, and
// forgets every event that began before to.
func (l *Log) Between(from, to time.Time) []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out, keep []Event
	for _, e := range l.events {
		switch {
		case !e.Start.Before(to):
			keep = append(keep, e)
		case !e.End.Before(from):
			out = append(out, e)
		}
	}
	l.events = keep
	sortByStart(out)
	return out
}

func sortByStart(es []Event) {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && es[j].Start.Before(es[j-1].Start); j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}
