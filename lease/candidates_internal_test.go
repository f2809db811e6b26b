package lease

import (
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// TestSuccession: the leader first; then who may lead and is neither
// damped nor superseded, by priority, then queue token or join token; then
// the damped and the superseded; then NoLead; then requests. Records this
// package cannot read are left out.
func TestSuccession(t *testing.T) {
	rec := func(owner string, token uint64, c candidateValue) backends.Record {
		c.Identity, c.Joined = owner, joinedAt(time.Unix(int64(token), 0))
		return backends.Record{Election: "e", Owner: owner, Token: token, Value: encodeCandidate(c)}
	}
	recs := []backends.Record{
		rec("req", 1, candidateValue{Request: &handoverRequest{}}),
		rec("nolead", 2, candidateValue{Priority: 9, NoLead: true}),
		rec("damped", 3, candidateValue{Priority: 9, Damped: true}),
		rec("p5-late", 4, candidateValue{Priority: 5, Queue: 40}),
		rec("p5-early", 5, candidateValue{Priority: 5, Queue: 10}),
		rec("p0", 6, candidateValue{}),
		rec("leader", 7, candidateValue{Priority: -1}),
		{Election: "e", Owner: "foreign", Token: 8, Value: []byte("not json")},
		rec("p5-nowait", 9, candidateValue{Priority: 5}),
		rec("p0-old", 2, candidateValue{Priority: 9}), // p0's earlier session
	}
	recs[len(recs)-1].Value = encodeCandidate(candidateValue{Identity: "p0", Priority: 9, Joined: joinedAt(time.Unix(2, 0))})
	got := succession(recs, backends.Record{Election: "e", Owner: "leader", Token: 100})
	want := []string{"leader", "p5-nowait", "p5-early", "p5-late", "p0", "p0", "damped", "nolead", "req"}
	if len(got) != len(want) {
		t.Fatalf("%d candidates, want %d: %+v", len(got), len(want), got)
	}
	for i, c := range got {
		if c.Identity != want[i] || c.Leader != (i == 0) || c.Superseded != (i == 5) || c.Joined.IsZero() {
			t.Errorf("#%d: %+v, want %s", i, c, want[i])
		}
	}
	if o := got[5]; o.Session != "p0-old" {
		t.Errorf("superseded: %+v, want p0's earlier session", o)
	}
	if r := got[8]; !r.Requester || r.MayLead || r.Request != "" {
		t.Errorf("request: %+v", r)
	}
	if n := got[7]; n.MayLead || n.Requester {
		t.Errorf("nolead: %+v", n)
	}
	cc := coreCandidates(recs)
	if len(cc) != 9 || !cc[0].Request || cc[1].MayLead || !cc[2].Damped || cc[3].Order != 40 || cc[5].Order != 6 || cc[7].Order != 9 {
		t.Errorf("coreCandidates = %+v", cc)
	}
}
