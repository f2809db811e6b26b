package consul

import (
	"testing"

	"github.com/hashicorp/consul/api"
)

func TestRecord(t *testing.T) {
	locked := &api.KVPair{Value: []byte("v"), Session: "s", ModifyIndex: 9, LockIndex: 1, Flags: api.LockFlagValue}
	unlocked := &api.KVPair{Value: []byte("v"), ModifyIndex: 12, Flags: api.LockFlagValue}
	if r := record("e", nil, 5); r.Exists() || r.Revision != 5 || r.Election != "e" || r.Value != nil || r.Owner != "" {
		t.Errorf("absent key: %+v", r)
	}
	if r := record("e", unlocked, 12); r.Exists() || r.Revision != 12 || r.Value != nil || r.Owner != "" {
		t.Errorf("unlocked key: %+v, want absent", r)
	}
	if r := record("e", locked, 9); r.Token != 9 || r.Owner != "s" || string(r.Value) != "v" || r.Revision != 9 {
		t.Errorf("locked key: %+v, want token 9 (its ModifyIndex, not its LockIndex) held by s", r)
	}
}

// TestRecordProclaimed: a locked key whose value ends with the token
// trailer reports the trailer's token and the value before it, if the
// token is below the key's ModifyIndex and the flags are api.Lock's; any
// other trailer is part of the value, and the token the ModifyIndex.
func TestRecordProclaimed(t *testing.T) {
	pair := func(v []byte, flags, modify uint64) *api.KVPair {
		return &api.KVPair{Value: v, Session: "s", ModifyIndex: modify, Flags: flags}
	}
	lf := uint64(api.LockFlagValue)
	for _, c := range []struct {
		name  string
		p     *api.KVPair
		token uint64
		value string
	}{
		{"proclaimed", pair(withToken([]byte("v2"), 9), lf, 12), 9, "v2"},
		{"proclaimed empty", pair(withToken(nil, 9), lf, 12), 9, ""},
		{"token not below the index", pair(withToken([]byte("v"), 12), lf, 12), 12, "v" + tokenMark + "12"},
		{"token 0", pair([]byte("v"+tokenMark+"0"), lf, 12), 12, "v" + tokenMark + "0"},
		{"leading zero", pair([]byte("v"+tokenMark+"09"), lf, 12), 12, "v" + tokenMark + "09"},
		{"not digits", pair([]byte("v"+tokenMark+"9x"), lf, 12), 12, "v" + tokenMark + "9x"},
		{"no digits", pair([]byte("v"+tokenMark), lf, 12), 12, "v" + tokenMark},
		{"foreign flags", pair(withToken([]byte("v"), 9), 0, 12), 12, "v" + tokenMark + "9"},
		{"last trailer counts", pair(withToken(withToken([]byte("v"), 3), 9), lf, 12), 9, "v" + tokenMark + "3"},
	} {
		r := record("e", c.p, 12)
		if r.Token != c.token || string(r.Value) != c.value || tokenOf(c.p) != c.token {
			t.Errorf("%s: token %d, value %q; want %d, %q", c.name, r.Token, r.Value, c.token, c.value)
		}
	}
}

func TestNextIndex(t *testing.T) {
	for _, c := range []struct{ prev, last, want uint64 }{
		{10, 12, 12}, // moved on
		{10, 10, 10}, // wait time ran out
		{10, 7, 0},   // went backwards: start over
		{0, 0, 1},    // never block on 0
		{0, 7, 7},
	} {
		if got := nextIndex(c.prev, c.last); got != c.want {
			t.Errorf("nextIndex(%d, %d) = %d, want %d", c.prev, c.last, got, c.want)
		}
	}
}
