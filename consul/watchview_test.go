package consul

import (
	"testing"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
)

// TestViewAnswer: a view answers a request only if read at or after its
// revision, with the key's state; it finds keys in an unsorted list. A
// queue entry written after its Record's Revision (a Nudge) is answered.
func TestViewAnswer(t *testing.T) {
	held := &api.KVPair{Key: "p/a", Session: "s1", Value: []byte("v"), ModifyIndex: 5, CreateIndex: 5}
	entry := &api.KVPair{Key: "p/~queue/a/~s2", Session: "s2", ModifyIndex: 6, CreateIndex: 6}
	v := view{}.next(listing{pairs: api.KVPairs{entry, held}, index: 9})
	absent := backends.Record{Election: "a"}
	cases := []struct {
		name   string
		r      request
		answer bool
		token  uint64
	}{
		{"differs", request{known: absent, key: "p/a"}, true, 5},
		{"read before its revision", request{known: absent, key: "p/a", after: 10}, false, 0},
		{"same state", request{known: backends.Record{Token: 5, Value: []byte("v")}, key: "p/a", after: 9}, false, 0},
		{"other value", request{known: backends.Record{Token: 5, Value: []byte("w")}, key: "p/a"}, true, 5},
		{"absent key", request{known: backends.Record{Token: 3}, key: "p/b"}, true, 0},
		{"entry there", request{known: backends.Record{Owner: "s2", Token: 6, Revision: 6}, key: "p/~queue/a/~s2", gone: true}, false, 0},
		{"entry nudged", request{known: backends.Record{Owner: "s2", Token: 6, Revision: 5}, key: "p/~queue/a/~s2", gone: true}, true, 6},
		{"entry replaced", request{known: backends.Record{Owner: "s2", Token: 4}, key: "p/~queue/a/~s2", gone: true}, true, 4},
		{"entry gone", request{known: backends.Record{Owner: "s3", Token: 7}, key: "p/~queue/a/~s3", gone: true}, true, 7},
	}
	for _, tc := range cases {
		c, ok := v.answer(&tc.r)
		if ok != tc.answer || ok && c.Record.Token != tc.token {
			t.Errorf("%s: answer %+v, %v; want %v with token %d", tc.name, c, ok, tc.answer, tc.token)
		}
	}
	if _, ok := (view{}).answer(&request{key: "p/a"}); ok {
		t.Error("a view that read nothing answered")
	}
	if w := v.next(listing{index: 3}); !w.back || w.seq != 2 || v.back {
		t.Errorf("index 9 then 3: back %v (first %v), seq %d; want back at the second", w.back, v.back, w.seq)
	}
}
