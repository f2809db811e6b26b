package fencing

import (
	"sync"
	"sync/atomic"
)

// Guard remembers the highest token it has admitted and rejects lower ones.
// A resource uses one Guard for all the writes it wants to fence.
//
// The zero value is ready to use and has admitted nothing. A Guard is safe
// for concurrent use. It must not be copied after first use.
type Guard struct {
	mu sync.Mutex
	// highest is written only while mu is held. It is atomic so that
	// Highest needs no lock, which lets fn in Do call it.
	highest atomic.Uint64
}

// NewGuard returns a Guard that behaves as if it had already admitted
// highest. A resource that restarts uses it to restore the highest token from
// its own durable state, because a Guard keeps nothing across restarts.
// NewGuard(0) is the same as a zero Guard.
func NewGuard(highest Token) *Guard {
	g := new(Guard)
	g.highest.Store(uint64(highest))
	return g
}

// Admit checks t and records it in one atomic step. It returns [ErrNoToken]
// if t is 0, a *[StaleError] if t is lower than the highest token admitted so
// far, and otherwise raises the highest token to t and returns nil. A token
// equal to the highest is admitted, since one leader writes many times.
//
// Admit only orders the checks. Whatever the caller does after Admit returns
// can interleave with the write of a caller holding a higher token. Use
// [Guard.Do] to run the write itself under the guard.
func (g *Guard) Admit(t Token) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.admitLocked(t)
}

// Do admits t as [Guard.Admit] does and, if t is admitted, runs fn while
// still holding the guard's lock. It returns the admission error, in which
// case fn does not run, or else whatever fn returns. A nil fn makes Do
// equivalent to Admit.
//
// Holding the lock matters because fencing is a check-then-act operation.
// With Admit, an old leader's write with token 5 can be admitted, then the
// new leader's write with token 6 admitted and applied, and only then the
// old write applied on top of it. The check passed, but the writes landed
// out of order. Do rules this out: no write carrying a lower token can run
// between the check and fn, nor while fn runs.
//
// The highest token is raised before fn runs and stays raised if fn returns
// an error or panics: the token was valid, and a leader that has shown it
// must not be followed by a lower one. An admission error satisfies
// errors.Is with [ErrNoToken] or [ErrStale]; if fn can return errors that
// match those too, the caller cannot tell the two apart.
//
// Do calls on one Guard run one at a time, so fn should be short. fn may call
// [Guard.Highest], but calling Admit or Do on the same Guard deadlocks.
func (g *Guard) Do(t Token, fn func() error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.admitLocked(t); err != nil {
		return err
	}
	if fn == nil {
		return nil
	}
	return fn()
}

// Highest returns the highest token admitted so far, or the value given to
// [NewGuard] if that is higher, or 0 if nothing has been admitted. It does
// not take the guard's lock and may be called from fn in [Guard.Do].
func (g *Guard) Highest() Token {
	return Token(g.highest.Load())
}

// admitLocked is Admit's logic. g.mu must be held.
func (g *Guard) admitLocked(t Token) error {
	if t == 0 {
		return ErrNoToken
	}
	if h := Token(g.highest.Load()); t < h {
		return &StaleError{Token: t, Highest: h}
	}
	g.highest.Store(uint64(t))
	return nil
}
