package fencing

import (
	"errors"
	"fmt"
	"strconv"
)

// Token is a fencing token: a number taken from the coordination store that
// strictly increases from one leadership to the next. The zero Token means
// "no token" and is never valid on a write.
type Token uint64

// String returns t in decimal, the form [ParseToken] accepts.
func (t Token) String() string {
	return strconv.FormatUint(uint64(t), 10)
}

// ParseToken parses the decimal form of a token, as produced by
// [Token.String]. It returns an error naming s if s is empty, is not an
// unsigned decimal number (no sign, spaces or prefix), does not fit in 64
// bits, or is 0. The error wraps no other error.
func ParseToken(s string) (Token, error) {
	if s == "" {
		return 0, errors.New(`fencing: invalid token "": empty`)
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		reason := "not a decimal number"
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			reason = "out of range"
		}
		return 0, fmt.Errorf("fencing: invalid token %s: %s", quote(s), reason)
	}
	if n == 0 {
		return 0, fmt.Errorf("fencing: invalid token %s: zero is not a valid token", quote(s))
	}
	return Token(n), nil
}

// maxQuoted bounds how much of a bad input appears in an error message. A
// valid token has at most 20 digits.
const maxQuoted = 40

// quote returns s quoted for an error message, shortened if it is long.
// Quoting keeps messages on one line whatever s contains.
func quote(s string) string {
	if len(s) > maxQuoted {
		return strconv.Quote(s[:maxQuoted]) + "..."
	}
	return strconv.Quote(s)
}
