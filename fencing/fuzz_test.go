package fencing

import (
	"errors"
	"net/http"
	"strings"
	"testing"
)

// maxErrLen bounds a token error: its fixed words plus a quote of at most
// maxQuoted bytes of input (each byte quoted as up to 4).
const maxErrLen = 100 + 4*maxQuoted

// FuzzParseToken: ParseToken never panics; a token it returns is not zero
// and prints back as the input; its error is bounded whatever the input.
func FuzzParseToken(f *testing.F) {
	for _, s := range []string{"1", "42", "0", "", "-3", "+3", " 3", "03", "18446744073709551615",
		"18446744073709551616", "0x10", "1e3", strings.Repeat("9", 300), "\xff\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tok, err := ParseToken(s)
		if err != nil {
			if errors.Unwrap(err) != nil || len(err.Error()) > maxErrLen {
				t.Fatalf("ParseToken(%q): error wraps another or is %d bytes: %v", s, len(err.Error()), err)
			}
			return
		}
		if tok == 0 {
			t.Fatalf("ParseToken(%q) = 0 without an error", s)
		}
		if again, err := ParseToken(tok.String()); err != nil || again != tok {
			t.Fatalf("ParseToken(%q) = %d, whose String parses as %d, %v", s, tok, again, err)
		}
	})
}

// FuzzFromHeader: for any header values (joined by '\x00' in the input),
// FromHeader never panics; it accepts exactly one value that ParseToken
// accepts, and its error is bounded however many and long the values are.
func FuzzFromHeader(f *testing.F) {
	for _, s := range []string{"7", "", "0", "3\x004", strings.Repeat("1\x00", 100), strings.Repeat("x", 500), "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, joined string) {
		vals := strings.Split(joined, "\x00")
		tok, err := FromHeader(http.Header{Header: vals})
		if len(vals) == 1 {
			want, werr := ParseToken(vals[0])
			if tok != want || (err == nil) != (werr == nil) {
				t.Fatalf("FromHeader(%q) = %d, %v; ParseToken = %d, %v", vals, tok, err, want, werr)
			}
		} else if err == nil {
			t.Fatalf("FromHeader(%d values) = %d, want an error", len(vals), tok)
		}
		if err != nil && (errors.Unwrap(err) != nil || len(err.Error()) > maxErrLen) {
			t.Fatalf("FromHeader(%q): error wraps another or is %d bytes: %v", vals, len(err.Error()), err)
		}
	})
}
