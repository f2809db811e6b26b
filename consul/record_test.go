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
