package fencing

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Header is the HTTP header that carries a fencing token, in decimal.
const Header = "Fencing-Token"

// SetHeader sets the [Header] of h to t, replacing any value already there.
// A zero t is written as "0", which receivers reject.
func SetHeader(h http.Header, t Token) {
	h.Set(Header, t.String())
}

// FromHeader returns the token in the [Header] of h. It returns [ErrNoToken]
// itself if the header is absent. It returns an error that wraps no other
// error if the header is malformed: empty, not a valid token (see
// [ParseToken]), or present more than once.
func FromHeader(h http.Header) (Token, error) {
	vals := h.Values(Header)
	switch len(vals) {
	case 0:
		return 0, ErrNoToken
	case 1:
		return ParseToken(vals[0])
	default:
		return 0, fmt.Errorf("fencing: invalid token: %d %s header values %s, want one",
			len(vals), Header, quote(strings.Join(vals, ", ")))
	}
}

// Middleware returns a handler that fences next with g. For each request it
// reads the token with [FromHeader] and admits it with [Guard.Do], calling
// next.ServeHTTP inside Do so the handler runs under the guard. Handlers
// wrapped by one Guard therefore run one at a time.
//
// A missing or malformed token gets 400 Bad Request and a stale token gets
// 409 Conflict, each with a one-line text/plain body giving the reason; next
// is not called. A handler that needs the token can read it again with
// FromHeader. It must not call Admit or Do on g, which would deadlock.
func (g *Guard) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t, err := FromHeader(r.Header)
		if err != nil {
			msg := err.Error()
			if errors.Is(err, ErrNoToken) {
				msg = "fencing: missing " + Header + " header"
			}
			http.Error(w, msg, http.StatusBadRequest)
			return
		}
		err = g.Do(t, func() error {
			next.ServeHTTP(w, r)
			return nil
		})
		switch {
		case err == nil:
		case errors.Is(err, ErrStale):
			http.Error(w, err.Error(), http.StatusConflict)
		default:
			// Not reached: FromHeader never returns a zero token.
			http.Error(w, err.Error(), http.StatusBadRequest)
		}
	})
}
