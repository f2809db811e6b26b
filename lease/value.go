package lease

import (
	"bytes"
	"encoding/json"
	"errors"
	"time"
)

// The leader key's value is the identity, a newline, and the time the
// holder took the key by its own clock (RFC 3339): this is all a plain
// leader writes, and all that readers of older versions understand. A
// leader that proclaimed a value (Leadership.Proclaim) adds a third line, a JSON object (leaderExtra). The time is shown to
// observers as LeaderInfo.Since and is never used for a decision.

// leaderValue is the leader key's value, decoded.
type leaderValue struct {
	identity string
	since    time.Time   // zero: a value not written by this package
	extra    leaderExtra // the third line; zero: none
}

// leaderExtra is the optional third line of the leader key's value.
type leaderExtra struct {
	// Value is what the leader proclaimed (LeaderInfo.Value).
	Value string `json:"value,omitempty"`
	// Labels are the leader's labels (Options.Labels) as it proclaimed them.
	Labels map[string]string `json:"labels,omitempty"`
}

func (x leaderExtra) isZero() bool {
	return x.Value == "" && len(x.Labels) == 0
}

// encodeValue is the value of a plain leader's key.
func encodeValue(identity string, at time.Time) []byte {
	return encodeLeader(leaderValue{identity: identity, since: at})
}

// encodeLeader encodes v; the third line only if v.extra is not zero.
func encodeLeader(v leaderValue) []byte {
	b := []byte(v.identity + "\n" + v.since.UTC().Format(time.RFC3339Nano))
	if v.extra.isZero() {
		return b
	}
	x, err := json.Marshal(v.extra) // escapes newlines: one line
	if err != nil {
		panic("lease: leader value: " + err.Error()) // strings only: cannot fail
	}
	return append(append(b, '\n'), x...)
}

// decodeValue splits a value into identity and acquisition time. A value
// not written by this package (e.g. by Consul's api.Lock) is all identity,
// with a zero time.
func decodeValue(v []byte) (string, time.Time) {
	lv := decodeLeader(v)
	return lv.identity, lv.since
}

// decodeLeader decodes a leader key's value: two lines, or three whose
// last is a JSON object. Any other value (another client's, or garbage) is
// all identity, with a zero time and no third line.
func decodeLeader(v []byte) leaderValue {
	foreign := leaderValue{identity: string(v)}
	id, rest, ok := bytes.Cut(v, []byte("\n"))
	if !ok {
		return foreign
	}
	at, third, three := bytes.Cut(rest, []byte("\n"))
	t, err := time.Parse(time.RFC3339Nano, string(at))
	if y := t.UTC().Year(); err != nil || y < 0 || y > 9999 {
		return foreign // a time that would not read back once written in UTC
	}
	lv := leaderValue{identity: string(id), since: t}
	if three && (len(third) == 0 || third[0] != '{' || json.Unmarshal(third, &lv.extra) != nil) {
		return foreign
	}
	return lv
}

// candidateValue is the value of a candidate record in an election's
// roster (backends.Session.Join), as JSON.
type candidateValue struct {
	Identity string            `json:"identity"`
	Priority int               `json:"priority"`
	Labels   map[string]string `json:"labels,omitempty"`
	// Joined is when the campaign first joined, by the candidate's clock,
	// in RFC 3339: for display only.
	Joined string `json:"joined"`
	NoLead bool   `json:"nolead,omitempty"`
	Damped bool   `json:"damped,omitempty"`
	// Queue is the token of the candidate's queue entry; 0 if none.
	Queue uint64 `json:"queue"`
	// Wakes says the candidate's wait in line wakes when the key is
	// passed to it (core.Candidate.Wakes).
	Wakes bool `json:"wakes,omitempty"`
	// Follows says whether the candidate, once it leads, follows its
	// roster and so sees handover requests: always true in the records
	// this version writes (every leader follows in its watch set).
	Follows *bool `json:"follows,omitempty"`
	// Request is set on the record of a `leasehold handover` request, which
	// is no candidate.
	Request *handoverRequest `json:"request,omitempty"`
}

// handoverRequest is a request to hand the election over.
type handoverRequest struct {
	// Handover names the target: an identity or a session ID; empty for
	// the next in line.
	Handover string `json:"handover"`
}

func encodeCandidate(c candidateValue) []byte {
	b, err := json.Marshal(c)
	if err != nil {
		panic("lease: candidate value: " + err.Error()) // strings, ints and bools: cannot fail
	}
	return b
}

// joinedAt renders a candidacy's join time for its record.
func joinedAt(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// joinedTime reads a record's join time; zero if it is none.
func joinedTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// decodeCandidate decodes a candidate record's value. It fails on a value
// that is no JSON object or has no identity.
func decodeCandidate(v []byte) (candidateValue, error) {
	var c candidateValue
	if err := json.Unmarshal(v, &c); err != nil {
		return candidateValue{}, err
	}
	if c.Identity == "" {
		return candidateValue{}, errNoIdentity
	}
	return c, nil
}

// errNoIdentity: a candidate record without an identity.
var errNoIdentity = errors.New("candidate record without identity")
