package fencing

import (
	"errors"
	"fmt"
)

// ErrStale reports that a token is lower than one already admitted. Errors
// returned for stale tokens are *[StaleError] values; test for them with
// errors.Is(err, ErrStale), or errors.As to read the token values.
var ErrStale = errors.New("fencing: stale token")

// ErrNoToken reports that a request carries no token, or carries the zero
// token where one is required.
var ErrNoToken = errors.New("fencing: no token")

// StaleError reports that Token was rejected because Highest, a higher token,
// had already been admitted. errors.Is(err, ErrStale) is true for it.
type StaleError struct {
	Token   Token // the rejected token
	Highest Token // the highest token admitted when Token was rejected
}

// Error returns a message such as
// "fencing: token 5 is stale: highest seen is 9".
func (e *StaleError) Error() string {
	return fmt.Sprintf("fencing: token %d is stale: highest seen is %d", e.Token, e.Highest)
}

// Is reports whether target is [ErrStale].
func (e *StaleError) Is(target error) bool { return target == ErrStale }

// Unwrap returns [ErrStale].
func (e *StaleError) Unwrap() error { return ErrStale }
