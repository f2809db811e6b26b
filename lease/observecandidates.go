package lease

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/lease/internal/core"
)

// ObserveCandidates streams election's candidate list, as Candidates
// returns it: first the current list, then the list after every change
// of the roster or of the leader. It follows them with the store's waits
// (backends.Roster.WaitList and Store.Wait), not by polling, so a join or
// a graceful leave shows within a round trip. It needs no session and
// does not campaign. As with Observe, the channel is unbuffered, and a
// change that came and went while the reader was busy (or while the
// store was unreachable) can be skipped; an unchanged list is not sent
// again. Store errors are retried every RetryInterval. A permanent one
// (backends.ErrPermission) closes the channel, and so do the end of ctx
// and Close. It fails at once, with an error wrapping
// errors.ErrUnsupported, if the store does not implement backends.Roster.
func (e *LeaseElector) ObserveCandidates(ctx context.Context, election string) (<-chan []Candidate, error) {
	if err := backends.ValidateElection(election); err != nil {
		return nil, fmt.Errorf("lease: observe candidates: %v: %w", err, ErrInvalidOption)
	}
	if e.roster == nil {
		return nil, e.noRoster("observe candidates", election)
	}
	return stream(e, ctx, func(ctx context.Context, ch chan<- []Candidate) { e.followCandidates(ctx, election, ch) }), nil
}

// rosterState is what followCandidates knows of an election: its roster
// at rev and its leader key, if read is set; else both are to be read.
type rosterState struct {
	recs   []backends.Record
	rev    uint64
	leader backends.Record
	read   bool
}

func (e *LeaseElector) followCandidates(ctx context.Context, election string, ch chan<- []Candidate) {
	st := rosterState{leader: backends.Record{Election: election}}
	var last []Candidate
	first := true
	for ctx.Err() == nil {
		var err error
		if !st.read {
			err = e.readRoster(ctx, election, &st)
		} else {
			err = e.awaitRoster(ctx, &st)
		}
		switch {
		case core.Permanent(err):
			e.log.Error("observe candidates refused by the store", "election", election, "err", err)
			return
		case errors.Is(err, backends.ErrCompacted):
			st.read = false
			continue
		case err != nil:
			st.read = false
			e.pause(ctx, e.opts.RetryInterval)
			continue
		}
		cs := succession(st.recs, st.leader)
		if first || !reflect.DeepEqual(cs, last) {
			first, last = false, cs
			send(ctx, ch, cs)
		}
	}
}

// readRoster reads election's roster and leader key into st.
func (e *LeaseElector) readRoster(ctx context.Context, election string, st *rosterState) error {
	ctx, cancel := context.WithTimeout(ctx, e.opts.RequestTimeout)
	defer cancel()
	recs, rev, err := e.roster.List(ctx, election)
	if err != nil {
		return err
	}
	leader, err := e.store.Get(ctx, election)
	if err != nil {
		return err
	}
	*st = rosterState{recs: recs, rev: rev, leader: leader, read: true}
	return nil
}

// awaitRoster waits for the roster or the leader key to change from st,
// and updates st with whichever changed first.
func (e *LeaseElector) awaitRoster(ctx context.Context, st *rosterState) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type change struct {
		st  rosterState
		err error
	}
	out := make(chan change, 2)
	go func() {
		recs, rev, err := e.roster.WaitList(ctx, st.leader.Election, st.rev)
		out <- change{rosterState{recs: recs, rev: rev, leader: st.leader, read: true}, err}
	}()
	go func() {
		leader, err := e.store.Wait(ctx, st.leader)
		out <- change{rosterState{recs: st.recs, rev: st.rev, leader: leader, read: true}, err}
	}()
	c := <-out
	cancel()
	<-out // both waits end before st changes
	if c.err == nil {
		*st = c.st
	}
	return c.err
}
