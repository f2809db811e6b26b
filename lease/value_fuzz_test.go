package lease

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

// FuzzValue: a leader value this package writes, with or without its
// third line, reads back as the same identity, instant and proclaimed
// value; any other value (another client's, or garbage)
// reads without a panic, and what it reads as is stable: written again,
// it reads back the same.
func FuzzValue(f *testing.F) {
	f.Add("host/42/beef", int64(1_800_000_000_123_456_789), "", []byte("host/1/ab\n2026-11-23T16:00:00.5Z"))
	f.Add("", int64(0), "v", []byte(""))
	f.Add("a b\tc", int64(-1), "", []byte("no newline"))
	f.Add("x", int64(1<<62), "a\nb", []byte("x\n2026-11-23T16:00:00+01:00"))
	f.Add("ü", int64(-1<<62), "", []byte("x\nnot a time\n"))
	f.Add("id", int64(5), "", []byte("\n0000-01-01T00:00:00Z"))
	f.Add("0", int64(5), "", []byte("\n0001-01-01T0:00:00Z")) // the zero time itself
	f.Add("id", int64(5), "", []byte("id\n2026-11-23T16:00:00Z\n{\"value\":\"v\",\"labels\":{\"k\":\"v\"}}"))
	f.Add("id", int64(5), "", []byte("id\n2026-11-23T16:00:00Z\nnot json"))
	f.Add("id", int64(5), "", []byte("id\n2026-11-23T16:00:00Z\n{}\n"))
	f.Fuzz(func(t *testing.T, identity string, nanos int64, value string, raw []byte) {
		if !strings.Contains(identity, "\n") {
			roundTrip(t, identity, time.Unix(0, nanos), value)
		}
		lv := decodeLeader(raw)
		if lv.identity == string(raw) && lv.since.IsZero() && lv.extra.isZero() {
			return // read as all identity
		}
		if !bytes.HasPrefix(raw, []byte(lv.identity+"\n")) {
			t.Fatalf("decode(%q) = %q: not the value's first line", raw, lv.identity)
		}
		again := decodeLeader(encodeLeader(lv))
		if again.identity != lv.identity || !again.since.Equal(lv.since) || !reflect.DeepEqual(again.extra, lv.extra) {
			t.Fatalf("decode(%q) = %+v, which re-encoded reads as %+v", raw, lv, again)
		}
	})
}

// roundTrip: a value encoded with identity, at and a proclaimed value
// reads back as them.
func roundTrip(t *testing.T, identity string, at time.Time, value string) {
	t.Helper()
	x := leaderExtra{Value: value}
	if !isUTF8(value) {
		x = leaderExtra{} // JSON would replace its invalid bytes
	}
	v := encodeLeader(leaderValue{identity: identity, since: at, extra: x})
	if x.isZero() && bytes.Count(v, []byte("\n")) != 1 {
		t.Fatalf("a plain leader's value %q is not two lines", v)
	}
	lv := decodeLeader(v)
	id, got := decodeValue(v)
	if lv.identity != identity || id != identity || !lv.since.Equal(at) || !got.Equal(at) || lv.extra.Value != x.Value {
		t.Fatalf("encode(%q, %v, %q) reads back as %+v", identity, at, x.Value, lv)
	}
}

func isUTF8(s string) bool { return strings.ToValidUTF8(s, "\ufffd") == s }

// FuzzCandidate: a candidate record reads back as written, a request
// included; any other value reads without a panic, and one that reads
// is stable: written again, it reads back the same.
func FuzzCandidate(f *testing.F) {
	f.Add("host/1", 5, "zone", "a", true, uint64(7), "", []byte(`{"identity":"x","priority":-1,"joined":"2026-11-23T16:00:00Z","queue":3}`))
	f.Add("", 0, "", "", false, uint64(0), "target", []byte(`{"identity":"x","request":{"handover":""}}`))
	f.Add("ü", -3, "k", "\xff", true, uint64(1), "", []byte(`null`))
	f.Fuzz(func(t *testing.T, identity string, priority int, key, val string, flag bool, queue uint64, req string, raw []byte) {
		c := candidateValue{Identity: identity, Priority: priority, Labels: map[string]string{key: val},
			Joined: joinedAt(time.Unix(0, int64(queue>>1))), NoLead: flag, Damped: !flag, Queue: queue}
		if req != "" {
			c.Request = &handoverRequest{Handover: req}
		}
		if got, err := decodeCandidate(encodeCandidate(c)); identity != "" && isUTF8(identity+key+val+req) && (err != nil || !reflect.DeepEqual(got, c)) {
			t.Fatalf("candidate %+v reads back as %+v, %v", c, got, err)
		}
		got, err := decodeCandidate(raw)
		if err != nil {
			return
		}
		again, err := decodeCandidate(encodeCandidate(got))
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("decode(%q) = %+v, which re-encoded reads as %+v, %v", raw, got, again, err)
		}
	})
}
