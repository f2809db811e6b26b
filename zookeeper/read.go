package zookeeper

import (
	"context"
	"fmt"

	"github.com/leasehold/leasehold/backends"
)

// Get syncs the server it reads from with the leader, reads the election's
// pointer node and, if it names a lead node, whether that node exists (at
// the same time as the pointer, if the Store last saw the pointer name
// that node: see readKeyAfter), on the Store's reader: the connection of
// one of its sessions, or while it has none that can serve, a connection
// of its own (opened then, and closed once a session's can serve again). An empty pointer, or one
// whose lead node is gone (its session ended), gives a Record with Token
// 0. The Revision of a present key is the pointer's mzxid; that of an
// empty pointer too; that of a pointer whose lead node is gone the zxid
// the server had reached.
func (s *store) Get(ctx context.Context, election string) (backends.Record, error) {
	what := fmt.Sprintf("zookeeper: get %q", election)
	if err := named(what, election); err != nil {
		return backends.Record{}, err
	}
	if err := s.layout.Check(ctx); err != nil {
		return backends.Record{}, err
	}
	path := s.leaderPath(election)
	rec, err := readFor(s, ctx, func(l *link) (backends.Record, error) {
		rec, _, err := s.readKey(l, election, path)
		return rec, err
	})
	if err != nil {
		return backends.Record{}, classifyRead(what, ctx, err)
	}
	return rec, nil
}

// watchKey reads the key on l with a watch on the pointer node. Unless
// the pointer names a holder other than known's, which it returns at
// once, it watches the lead node too: its deletion, or a lead node
// already gone, makes the key absent (so a request from an absent key
// is not answered with a holder whose session ended). onLead is told the
// lead node's path before its watch is set.
func (s *store) watchKey(l *link, known backends.Record, path string, onLead func(string)) (backends.Record, error) {
	election := known.Election
	ps, err := getPointer(l, path, true)
	if err != nil {
		return backends.Record{}, err
	}
	s.ptrs.saw(election, ps)
	rec := ps.record(election, true, l)
	if !ps.led() || (rec.Differs(known) && known.Exists()) {
		return rec, nil // a new holder, as the pointer's write committed it
	}
	onLead(ps.p.lead)
	ok, _, _, err := l.conn.ExistsW(ps.p.lead)
	if err != nil || ok {
		if ok {
			s.ptrs.live(election, ps)
		}
		return rec, err
	}
	rec, _, err = s.leadGone(l, election, path, ps)
	return rec, err
}

// leadGone returns the key's state once the lead node that ps, the
// pointer as read on l, names was found gone after it: absent, unless the
// pointer moved between the two reads. A pass, which moves the pointer
// to the target and deletes the holder's lead node in one write, falls
// there if it commits between them; the key was never absent, and the
// pointer, read again, names the target, whose lead node is checked in
// turn, up to maxLeadReads pointers in all.
func (s *store) leadGone(l *link, election, path string, ps pstate) (backends.Record, pstate, error) {
	for range maxLeadReads {
		now, err := getPointer(l, path, false)
		switch {
		case err != nil:
			return backends.Record{}, pstate{}, err
		case now.st == nil || (now.led() && now.p.lead == ps.p.lead):
			s.ptrs.deleted(election, ps.p.lead)
			return ps.record(election, false, l), ps, nil
		}
		s.ptrs.saw(election, now)
		if !now.led() {
			return now.record(election, false, l), now, nil
		}
		alive, _, err := l.conn.Exists(now.p.lead)
		if err != nil || alive {
			if alive {
				s.ptrs.live(election, now)
			}
			return now.record(election, true, l), now, err
		}
		ps = now
	}
	return ps.record(election, false, l), ps, nil
}

// maxLeadReads bounds leadGone's reads of a pointer that keeps moving to
// holders whose lead nodes are gone by the time they are checked.
const maxLeadReads = 4

// since returns rec, a state of known's key read after known, with its
// Revision above known's if rec is absent and known present: the key
// went after known.Revision.
func since(known, rec backends.Record) backends.Record {
	if !rec.Exists() && known.Exists() {
		rec.Revision = max(rec.Revision, known.Revision+1)
	}
	return rec
}
