package lease

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// Proclaim publishes value in the leader key without a new term: the key
// keeps its Token, its session and the identity and time it was taken
// with; observers see the value as LeaderInfo.Value (Observe sends it),
// with the labels of its campaign (Options.Labels, or WithLabels). It checks Valid first and writes nothing if
// the leadership has ended (the error then wraps ErrLost); the store
// writes only while the key still holds this term's token and session,
// and otherwise the error wraps ErrLost and backends.ErrNotFound. It
// fails with ErrInvalidOption if the key's value would exceed the store's
// Limits.MaxValueSize. It makes one attempt, bounded by
// ctx: an error of another kind leaves the outcome unknown. It is safe
// for concurrent use; of concurrent calls, the one the store takes last
// wins.
//
// The value is a third line of the key's value, a JSON object, after the
// identity and the time. Observers of earlier versions read only two
// lines: they show a proclaimed key's whole value as the identity, with
// no time, and on Consul, where the token then sits in a trailer of the
// value (package consul), a token that moved on. Their candidates, which
// decide by the key and its token, are unaffected.
func (l *Leadership) Proclaim(ctx context.Context, value string) error {
	if l.e == nil {
		return fmt.Errorf("lease: proclaim %q: %w", l.Election, l.Err())
	}
	v := l.keyValue(value)
	if lim := l.e.store.Capabilities().MaxValueSize; lim > 0 && len(v) > lim {
		return fmt.Errorf("lease: proclaim %q: the value makes the key's value %d bytes; the store allows at most %d: %w",
			l.Election, len(v), lim, ErrInvalidOption)
	}
	s := l.session()
	if err := l.Valid(); err != nil {
		return err
	}
	if s == nil {
		return l.lostErr(errSessionEnded)
	}
	if _, err := s.Proclaim(ctx, l.Election, uint64(l.Token), v); err != nil {
		if errors.Is(err, backends.ErrNotFound) || errors.Is(err, backends.ErrSessionExpired) {
			return fmt.Errorf("lease: proclaim %q token %d: %w: %w", l.Election, l.Token, ErrLost, err)
		}
		return fmt.Errorf("lease: proclaim %q: %w", l.Election, err)
	}
	return nil
}

// session returns the store session l's key is bound to, or nil if the
// elector no longer has it.
func (l *Leadership) session() backends.Session {
	var s backends.Session
	l.e.do(func(time.Time) { s = l.e.session(l.epoch) })
	return s
}

// keyValue is l's key value with value proclaimed: two lines if value is
// empty.
func (l *Leadership) keyValue(value string) []byte {
	x := leaderExtra{Value: value}
	if value != "" {
		x.Labels = l.labels
	}
	return encodeLeader(leaderValue{identity: l.Identity, since: l.since, extra: x})
}
