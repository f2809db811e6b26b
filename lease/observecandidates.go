package lease

import (
	"context"
	"fmt"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/lease/internal/core"
)

// ObserveCandidates streams election's candidate list, as Candidates
// returns it: first the current list, then the list after every change
// of the roster or of the leader. It follows them with the store's watch
// (backends.WatchRoster and WatchKey requests), not by polling, so a join or
// a graceful leave shows within a round trip. It needs no session and
// does not campaign. As with Observe, the channel is unbuffered, and a
// change that came and went while the reader was busy (or while the
// store was unreachable) can be skipped; an unchanged list is not sent
// again. Store errors are retried as Observe retries them, and any error
// reads both the roster and the leader again. A permanent one
// (backends.ErrPermission) closes the channel, and so do the end of ctx
// and Close.
func (e *LeaseElector) ObserveCandidates(ctx context.Context, election string) (<-chan []Candidate, error) {
	if err := e.check("observe candidates"); err != nil {
		return nil, err
	}
	if err := backends.ValidateElection(election); err != nil {
		return nil, fmt.Errorf("lease: observe candidates: %v: %w", err, ErrInvalidOption)
	}
	return stream(e, ctx, func(ctx context.Context, ch chan<- []Candidate) { _ = e.followCandidates(ctx, election, ch) }), nil
}

// rosterState is what followCandidates knows of an election: its roster
// and its leader key, read together, so that any error reads both again.
type rosterState struct {
	roster rosterAt
	leader backends.Record
}

// rosterAt is an election's roster as read at a revision.
type rosterAt struct {
	recs []backends.Record
	rev  uint64
}

// followCandidates sends election's candidate list on ch, as
// ObserveCandidates streams it, until ctx ends or the store refuses the
// roster or the leader key for good, and returns that refusal (nil if
// ctx ended).
func (e *LeaseElector) followCandidates(ctx context.Context, election string, ch chan<- []Candidate) error {
	fl := follower[rosterState]{
		read: func(ctx context.Context) (rosterState, error) { return e.readRoster(ctx, election) },
		wait: e.awaitRoster,
	}
	var sends core.ListSends
	err := fl.run(ctx, e, func(st rosterState) {
		if l := core.List(decodeRoster(st.roster.recs, true), holder(st.leader)); sends.Next(l) {
			send(ctx, ch, candidatesOf(l))
		}
	})
	if err != nil {
		e.log.Error("observe candidates refused by the store", "election", election, "err", err)
	}
	return err
}

// readRoster reads election's roster and leader key.
func (e *LeaseElector) readRoster(ctx context.Context, election string) (rosterState, error) {
	recs, rev, err := e.store.List(ctx, election)
	if err != nil {
		return rosterState{}, err
	}
	leader, err := e.store.Get(ctx, election)
	if err != nil {
		return rosterState{}, err
	}
	return rosterState{roster: rosterAt{recs: recs, rev: rev}, leader: leader}, nil
}

// awaitRoster waits for the roster or the leader key to change from st,
// and returns st with whichever changed first updated: a changed roster
// is read again with List. Both waits, requests in the observers' set,
// have ended when it returns; no goroutine waits for them.
func (e *LeaseElector) awaitRoster(ctx context.Context, st rosterState) (rosterState, error) {
	roster := backends.WatchRequest{Kind: backends.WatchRoster, Known: backends.Record{Election: st.leader.Election, Revision: st.roster.rev},
		Digest: backends.RosterDigest(st.roster.recs)}
	c := e.obs.wait(ctx, roster, backends.WatchRequest{Kind: backends.WatchKey, Known: st.leader})
	switch {
	case c.Err != nil:
		return st, c.Err
	case !c.Roster:
		st.leader = c.Record
		return st, nil
	}
	lctx, lcancel := context.WithTimeout(ctx, e.opts.RequestTimeout)
	defer lcancel()
	recs, rev, err := e.store.List(lctx, st.leader.Election)
	return rosterState{roster: rosterAt{recs: recs, rev: rev}, leader: st.leader}, err
}
