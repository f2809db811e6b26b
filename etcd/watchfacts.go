package etcd

import (
	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/keys"
	"github.com/leasehold/leasehold/internal/watchset"
)

// extras are what one response's events put beside the leader keys, by
// election: term keys, and the leader keys themselves. A term key is put
// in the transaction that creates or passes its leader key, so one
// response holds both events.
type extras struct {
	terms   map[string]*mvccpb.KeyValue
	leaders map[string]*mvccpb.KeyValue
}

// facts returns the Facts of evs, one response's events: first the
// passes they tell, then each event's own.
func (s *store) facts(evs []*clientv3.Event) []watchset.Fact {
	x := extras{terms: map[string]*mvccpb.KeyValue{}, leaders: map[string]*mvccpb.KeyValue{}}
	for _, ev := range evs {
		seg, el, _, ok := keys.Split(s.prefix, string(ev.Kv.Key))
		if !ok || ev.Type != clientv3.EventTypePut {
			continue
		}
		switch seg {
		case keys.TermSegment:
			x.terms[el] = ev.Kv
		case "":
			x.leaders[el] = ev.Kv
		}
	}
	var out []watchset.Fact
	for el, term := range x.terms {
		out = passedFact(out, el, x.leaders[el], term, uint64(term.ModRevision))
	}
	for _, ev := range evs {
		out = s.eventFact(out, ev, x)
	}
	return out
}

// eventFact appends ev's Fact, if it has one: a leader key's state (the
// token of a put that is neither the key's first nor comes with its term
// key is unknown: a LeaderWrite), a queue entry's, or a roster's write.
func (s *store) eventFact(out []watchset.Fact, ev *clientv3.Event, x extras) []watchset.Fact {
	seg, el, id, ok := keys.Split(s.prefix, string(ev.Kv.Key))
	rev, deleted := uint64(ev.Kv.ModRevision), ev.Type == clientv3.EventTypeDelete
	f := watchset.Fact{Election: el, Revision: rev, Record: backends.Record{Election: el, Revision: rev}}
	switch {
	case !ok:
		return out
	case seg == backends.RosterSegment:
		f.What = watchset.RosterWrite
	case seg == backends.QueueSegment:
		f.What, f.Record.Owner = watchset.EntryState, id
		if !deleted { // a pass's write of the entry is no change of it (see below)
			f.Record.Token, f.Record.Revision = uint64(ev.Kv.CreateRevision), uint64(ev.Kv.CreateRevision)
		}
	case seg != "":
		return out
	case deleted:
		f.What = watchset.LeaderState
	default:
		f.What = watchset.LeaderState
		term := x.terms[el]
		if term == nil || uint64(term.ModRevision) != rev {
			term = nil
			if ev.Kv.Version != 1 {
				f.What = watchset.LeaderWrite
			}
		}
		fill(&f.Record, ev.Kv, term)
	}
	return append(out, f)
}

// readFacts appends the Facts of request r read at rev: its key kv (the
// leader key, or a Gone's entry), its election's term key and leader key.
func (s *store) readFacts(out []watchset.Fact, r watchset.Request, kv, term, leader *mvccpb.KeyValue, rev uint64) []watchset.Fact {
	el := r.Known.Election
	f := watchset.Fact{What: watchset.LeaderState, Election: el, Revision: rev, Record: backends.Record{Election: el, Revision: rev}}
	switch {
	case r.Kind == watchset.Gone:
		out = passedFact(out, el, leader, term, rev)
		f.What, f.Record = watchset.EntryState, backends.Record{Owner: r.Known.Owner}
		if kv != nil {
			f.Record.Token, f.Record.Revision = uint64(kv.CreateRevision), uint64(kv.CreateRevision)
		}
	case kv == nil:
	default:
		fill(&f.Record, kv, term)
	}
	return append(out, f)
}

// An entry's Record.Revision, in an EntryState, is its create revision:
// the only write of an entry after its create is a pass to its session
// (session.pass), which wakes that session (a watch of its own entry,
// see stream.facts), not the one behind it, and is no Nudge.

// passedFact appends the Fact of a pass if the leader key kv, read with
// its term key term at rev, was passed (the term key names the target,
// see backends.Target.Entry) and holds that term still.
func passedFact(out []watchset.Fact, el string, kv, term *mvccpb.KeyValue, rev uint64) []watchset.Fact {
	if kv == nil || term == nil {
		return out
	}
	to, entry, ok := keys.ParseMarker(term.Value)
	p := uint64(term.ModRevision)
	if !ok || leaseID(kv.Lease) != to || tokenOf(kv, term) != p {
		return out
	}
	rec := backends.Record{Election: el, Revision: rev}
	fill(&rec, kv, term)
	return append(out, watchset.Fact{What: watchset.Passed, Election: el, Revision: p, Entry: entry, Record: rec})
}
