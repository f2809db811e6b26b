package fencing

import (
	"errors"
	"strings"
	"testing"
)

func TestTokenString(t *testing.T) {
	for _, tc := range []struct {
		tok  Token
		want string
	}{
		{1, "1"},
		{42, "42"},
		{18446744073709551615, "18446744073709551615"},
	} {
		if got := tc.tok.String(); got != tc.want {
			t.Errorf("Token(%d).String() = %q, want %q", uint64(tc.tok), got, tc.want)
		}
		back, err := ParseToken(tc.tok.String())
		if err != nil || back != tc.tok {
			t.Errorf("ParseToken(%q) = %d, %v; want %d, nil", tc.want, back, err, tc.tok)
		}
	}
}

func TestParseTokenValid(t *testing.T) {
	for in, want := range map[string]Token{
		"1":                    1,
		"9":                    9,
		"007":                  7,
		"18446744073709551615": 18446744073709551615,
	} {
		got, err := ParseToken(in)
		if err != nil || got != want {
			t.Errorf("ParseToken(%q) = %d, %v; want %d, nil", in, got, err, want)
		}
	}
}

func TestParseTokenInvalid(t *testing.T) {
	for _, tc := range []struct {
		in       string
		contains string // part of the message naming the input
	}{
		{"", `""`},
		{"0", `"0"`},
		{"00", `"00"`},
		{"abc", `"abc"`},
		{"-1", `"-1"`},
		{"+1", `"+1"`},
		{" 1", `" 1"`},
		{"1 ", `"1 "`},
		{"0x10", `"0x10"`},
		{"1_000", `"1_000"`},
		{"1.5", `"1.5"`},
		{"18446744073709551616", `"18446744073709551616"`},
		{"1\n2", `"1\n2"`},
	} {
		got, err := ParseToken(tc.in)
		if err == nil {
			t.Errorf("ParseToken(%q) = %d, nil; want error", tc.in, got)
			continue
		}
		if got != 0 {
			t.Errorf("ParseToken(%q) returned token %d with error", tc.in, got)
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "fencing: ") || !strings.Contains(msg, tc.contains) {
			t.Errorf("ParseToken(%q) error %q does not name the input as %s", tc.in, msg, tc.contains)
		}
		if strings.Contains(msg, "\n") {
			t.Errorf("ParseToken(%q) error %q spans lines", tc.in, msg)
		}
		if errors.Unwrap(err) != nil || errors.Is(err, ErrNoToken) || errors.Is(err, ErrStale) {
			t.Errorf("ParseToken(%q) error %v wraps another error", tc.in, err)
		}
	}
}

func TestParseTokenLongInputShortened(t *testing.T) {
	in := strings.Repeat("x", 10000)
	_, err := ParseToken(in)
	if err == nil {
		t.Fatal("ParseToken(long garbage) succeeded")
	}
	if len(err.Error()) > 200 {
		t.Errorf("error for long input is %d bytes, want it shortened", len(err.Error()))
	}
	if !strings.Contains(err.Error(), `"xxxx`) {
		t.Errorf("error %q does not name the input", err)
	}
}

func TestStaleError(t *testing.T) {
	var err error = &StaleError{Token: 5, Highest: 9}
	if got, want := err.Error(), "fencing: token 5 is stale: highest seen is 9"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, ErrStale) {
		t.Error("errors.Is(StaleError, ErrStale) = false")
	}
	if errors.Is(err, ErrNoToken) {
		t.Error("errors.Is(StaleError, ErrNoToken) = true")
	}
	wrapped := errors.Join(errors.New("write failed"), err)
	var se *StaleError
	if !errors.As(wrapped, &se) || se.Token != 5 || se.Highest != 9 {
		t.Errorf("errors.As through a wrapper = %v, want token 5 highest 9", se)
	}
	if !errors.Is(wrapped, ErrStale) {
		t.Error("errors.Is(wrapped StaleError, ErrStale) = false")
	}
	if errors.Is(ErrStale, ErrNoToken) || errors.Is(ErrNoToken, ErrStale) {
		t.Error("sentinels match each other")
	}
}
