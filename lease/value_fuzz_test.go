package lease

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// FuzzValue: a leader value this package writes reads back as the same
// identity and instant; any other value (another client's, or garbage)
// reads without a panic, and what it reads as is stable: written again,
// it reads back the same.
func FuzzValue(f *testing.F) {
	f.Add("host/42/beef", int64(1_800_000_000_123_456_789), []byte("host/1/ab\n2026-11-23T16:00:00.5Z"))
	f.Add("", int64(0), []byte(""))
	f.Add("a b\tc", int64(-1), []byte("no newline"))
	f.Add("x", int64(1<<62), []byte("x\n2026-11-23T16:00:00+01:00"))
	f.Add("ü", int64(-1<<62), []byte("x\nnot a time\n"))
	f.Add("id", int64(5), []byte("\n0000-01-01T00:00:00Z"))
	f.Add("0", int64(5), []byte("\n0001-01-01T0:00:00Z")) // the zero time itself
	f.Fuzz(func(t *testing.T, identity string, nanos int64, raw []byte) {
		if !strings.Contains(identity, "\n") {
			at := time.Unix(0, nanos)
			id, got := decodeValue(encodeValue(identity, at))
			if id != identity || !got.Equal(at) {
				t.Fatalf("encode(%q, %v) reads back as %q, %v", identity, at, id, got)
			}
		}
		id, at := decodeValue(raw)
		if id == string(raw) && at.IsZero() {
			return // read as all identity
		}
		if !bytes.Contains(raw, []byte("\n")) {
			t.Fatalf("decode(%q) = %q, %v: a value without a newline is all identity", raw, id, at)
		}
		if !bytes.HasPrefix(raw, []byte(id+"\n")) {
			t.Fatalf("decode(%q) = %q: not the value's first line", raw, id)
		}
		id2, at2 := decodeValue(encodeValue(id, at))
		if id2 != id || !at2.Equal(at) {
			t.Fatalf("decode(%q) = %q, %v, which re-encoded reads as %q, %v", raw, id, at, id2, at2)
		}
	})
}
