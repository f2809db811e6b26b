package lease

import (
	"errors"
	"testing"
)

// TestLostErr: a leadership's end, formatted only when read, reads as
// the wrapped error it replaced and wraps ErrLost and its cause.
func TestLostErr(t *testing.T) {
	l := &Leadership{Election: "jobs", Token: 7}
	cause := errors.New("renewal deadline passed")
	err := l.lostErr(cause)
	if want := `lease: "jobs" token 7: leadership lost: renewal deadline passed`; err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
	if !errors.Is(err, ErrLost) || !errors.Is(err, cause) {
		t.Errorf("%v wraps ErrLost %t and its cause %t, want both", err, errors.Is(err, ErrLost), errors.Is(err, cause))
	}
	if got := Reason(l.lostErr(ErrResigned)); got != Reason(ErrResigned) {
		t.Errorf("Reason = %q, want %q", got, Reason(ErrResigned))
	}
}
