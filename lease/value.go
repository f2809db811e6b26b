package lease

import (
	"bytes"
	"time"
)

// The leader key's value is the identity, a newline, and the time the
// holder took the key by its own clock (RFC 3339). The time is shown to
// observers as LeaderInfo.Since and is never used for a decision.

func encodeValue(identity string, at time.Time) []byte {
	return []byte(identity + "\n" + at.UTC().Format(time.RFC3339Nano))
}

// decodeValue splits a value into identity and acquisition time. A value
// not written by this package (e.g. by Consul's api.Lock) is all identity,
// with a zero time.
func decodeValue(v []byte) (string, time.Time) {
	id, at, ok := bytes.Cut(v, []byte("\n"))
	if !ok {
		return string(v), time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, string(at))
	if err != nil {
		return string(v), time.Time{}
	}
	return string(id), t
}
