package consul

import (
	"slices"
	"strings"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/keys"
	"github.com/leasehold/leasehold/internal/watchset"
)

// view is one answer of the hub's query: the keys under the prefix,
// sorted, as read at index. The zero view has read nothing. Views are
// numbered in the order read (seq); back says that Consul's index went
// back at this view.
type view struct {
	pairs api.KVPairs
	index uint64
	seq   uint64
	back  bool
}

// next returns the view of a list's answer, read after v.
func (v view) next(l listing) view {
	cmp := func(a, b *api.KVPair) int { return strings.Compare(a.Key, b.Key) }
	if !slices.IsSortedFunc(l.pairs, cmp) {
		slices.SortFunc(l.pairs, cmp)
	}
	return view{pairs: l.pairs, index: l.index, seq: v.seq + 1, back: v.seq > 0 && l.index < v.index}
}

// get returns the pair of key, or nil.
func (v view) get(key string) *api.KVPair {
	i, ok := slices.BinarySearchFunc(v.pairs, key, func(p *api.KVPair, k string) int { return strings.Compare(p.Key, k) })
	if !ok {
		return nil
	}
	return v.pairs[i]
}

// under returns the view's pairs whose keys begin with prefix.
func (v view) under(prefix string) api.KVPairs {
	i, _ := slices.BinarySearchFunc(v.pairs, prefix, func(p *api.KVPair, k string) int { return strings.Compare(p.Key, k) })
	j := i
	for j < len(v.pairs) && strings.HasPrefix(v.pairs[j].Key, prefix) {
		j++
	}
	return v.pairs[i:j]
}

// touched returns the keys written or deleted between views v and w.
func touched(v, w view) []string {
	var out []string
	a, b := v.pairs, w.pairs
	for len(a) > 0 || len(b) > 0 {
		switch {
		case len(b) == 0 || len(a) > 0 && a[0].Key < b[0].Key: // deleted
			out, a = append(out, a[0].Key), a[1:]
		case len(a) == 0 || b[0].Key < a[0].Key: // created
			out, b = append(out, b[0].Key), b[1:]
		default:
			if a[0].ModifyIndex != b[0].ModifyIndex {
				out = append(out, b[0].Key)
			}
			a, b = a[1:], b[1:]
		}
	}
	return out
}

// changes returns the Facts of the keys written or deleted from view v to
// w: first the passes they may tell, then each key's state in w.
func (s *store) changes(v, w view) []watchset.Fact {
	var out, rest []watchset.Fact
	for _, k := range touched(v, w) {
		seg, el, id, ok := keys.Split(s.prefix, k)
		switch {
		case !ok:
		case seg == "":
			out = s.passed(out, w, el)
			rest = append(rest, s.leaderFact(w, el))
		case seg == backends.QueueSegment:
			out = s.passed(out, w, el)
			rest = append(rest, s.entryFact(w, el, id))
		case seg == backends.RosterSegment:
			rest = append(rest, s.rosterFact(w, el))
		}
	}
	return append(out, rest...)
}

// facts returns the Facts of reqs in view v (see watchset.Stream.Read).
func (s *store) facts(v view, reqs []watchset.Request) []watchset.Fact {
	var out []watchset.Fact
	for _, r := range reqs {
		el := r.Known.Election
		switch r.Kind {
		case watchset.Wait:
			out = append(out, s.leaderFact(v, el))
		case watchset.Gone:
			out = append(s.passed(out, v, el), s.entryFact(v, el, r.Known.Owner))
		case watchset.Roster:
			out = append(out, s.rosterFact(v, el))
		}
	}
	return out
}

// leaderFact returns the state of election's leader key in v.
func (s *store) leaderFact(v view, el string) watchset.Fact {
	return watchset.Fact{What: watchset.LeaderState, Election: el, Revision: v.index, Record: record(el, v.get(s.key(el)), v.index)}
}

// entryFact returns the state of session id's queue entry in election
// el in v.
func (s *store) entryFact(v view, el, id string) watchset.Fact {
	prefix := s.queuePrefix(el)
	rec := backends.Record{Election: el, Owner: id}
	if p := v.get(prefix + id); isEntry(p, prefix) {
		rec.Token, rec.Revision = p.CreateIndex, p.ModifyIndex
	}
	return watchset.Fact{What: watchset.EntryState, Election: el, Revision: v.index, Record: rec}
}

// rosterFact returns the digest of election el's roster in v.
func (s *store) rosterFact(v view, el string) watchset.Fact {
	d := backends.RosterDigest(s.roster(el, v.under(s.rosterPrefix(el))))
	return watchset.Fact{What: watchset.RosterDigest, Election: el, Revision: v.index, Entry: d}
}

// passed appends the Fact of a pass if election el's leader key in v is
// locked by a session whose entry waits in line, as after a Pass to a
// candidate in line: its lock is the pass, at the key's ModifyIndex. A
// candidate that created the key at the head of the line has no entry
// ahead of its own, and wakes no one.
func (s *store) passed(out []watchset.Fact, v view, el string) []watchset.Fact {
	k := v.get(s.key(el))
	if k == nil || k.Session == "" {
		return out
	}
	prefix := s.queuePrefix(el)
	q := v.get(prefix + k.Session)
	if !isEntry(q, prefix) {
		return out
	}
	return append(out, watchset.Fact{What: watchset.Passed, Election: el, Revision: k.ModifyIndex, Entry: q.CreateIndex,
		Record: record(el, k, v.index)})
}
