package consul

import (
	"slices"
	"strings"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
)

// request is one pending request of a watchSet.
type request struct {
	tag   uint64
	known backends.Record // Wait: the known state; WaitGone: the entry
	key   string          // the KV key it is about
	gone  bool            // a WaitGone
	after uint64          // answer only from a view at this index or later
}

// view is one answer of the set's query: the keys under the prefix,
// sorted, as read at index. The zero view has read nothing.
type view struct {
	pairs api.KVPairs
	index uint64
	read  bool
}

// newView makes a view of a list's answer.
func newView(pairs api.KVPairs, index uint64) view {
	cmp := func(a, b *api.KVPair) int { return strings.Compare(a.Key, b.Key) }
	if !slices.IsSortedFunc(pairs, cmp) {
		slices.SortFunc(pairs, cmp)
	}
	return view{pairs: pairs, index: index, read: true}
}

// get returns the pair of key, or nil.
func (v view) get(key string) *api.KVPair {
	i, ok := slices.BinarySearchFunc(v.pairs, key, func(p *api.KVPair, k string) int { return strings.Compare(p.Key, k) })
	if !ok {
		return nil
	}
	return v.pairs[i]
}

// answer returns r's answer if the view tells one: it was read at or
// after r's index and shows a state that differs from r's (Wait), or the
// entry gone (WaitGone).
func (v view) answer(r *request) (backends.Change, bool) {
	if !v.read || v.index < r.after {
		return backends.Change{}, false
	}
	el := r.known.Election
	p := v.get(r.key)
	if r.gone {
		gone := !isEntry(p, strings.TrimSuffix(r.key, r.known.Owner)) || p.CreateIndex != r.known.Token
		return backends.Change{Election: el, Tag: r.tag, Record: r.known}, gone
	}
	rec := record(el, p, v.index)
	return backends.Change{Election: el, Tag: r.tag, Record: rec}, rec.Differs(r.known)
}
