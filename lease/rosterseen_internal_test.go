package lease

import (
	"context"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// TestFollowedRosterSeesJoinBeforeAsk: a candidate that joins between the
// leader's roster read and its next roster request, a join the watch
// set's stream carries before the request is made, reaches the leader's
// core at once, with no later write on the store. On embedded etcd, the
// leader's first roster request is held until a record of priority 3 has
// joined and the set has passed a later change: so the set owes the
// answer as the request is made. It delivered that answer only with the
// stream's next event: a leader handed the election by a request, whose
// roster read came just before the old leader stood again, preempted
// for about a second as if that candidate were absent, and handed over
// to the next below it (two hops to the top).
func TestFollowedRosterSeesJoinBeforeAsk(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	store := embeddedDriver(t)
	newcomer, err := store.NewSession(ctx, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = newcomer.Close(context.Background()) }()
	const el = "seen/before-ask"
	top := encodeCandidate(candidateValue{Identity: "top", Priority: 3, Joined: joinedAt(time.Now())})
	held := &joinBeforeAsk{Driver: store, election: el, fail: make(chan error, 1), marker: make(chan backends.Session, 1), join: func(ctx context.Context) error {
		_, err := newcomer.Join(ctx, el, top)
		return err
	}}
	e, l := leading(t, ctx, backends.NewStore(held), el, Options{Identity: "low"})
	defer func() { _ = e.Close(context.Background()) }()
	defer func() { _ = l.Resign(context.Background()) }()
	wctx, wcancel := context.WithTimeout(ctx, 5*time.Second)
	defer wcancel()
	done := make(chan struct{})
	go func() { // fails the test from its own goroutine: report instead
		defer close(done)
		for ; wctx.Err() == nil; pause(wctx, 5*time.Millisecond) {
			var ok bool
			e.do(func(time.Time) { ok = e.m.HasTarget(el, "top") })
			if ok {
				return
			}
		}
	}()
	select {
	case err := <-held.fail:
		t.Fatal(err)
	case <-done:
	}
	if wctx.Err() != nil {
		t.Fatal("the leader's core never saw the candidate that joined between its roster read and its request (5 s)")
	}
	_ = (<-held.marker).Close(context.Background())
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
}

// joinBeforeAsk is an etcd store whose watch sets hold the first roster
// request for election until join has run and the set's stream has
// passed a change made after it (another election's join, answered in
// the same set), then make the request as asked.
type joinBeforeAsk struct {
	backends.Driver
	election string
	join     func(context.Context) error
	fail     chan error            // the holding's store errors
	marker   chan backends.Session // the session of the later change
}

// markTag is the tag of the set's request that tells that its stream has
// passed the join; its answer is not the elector's.
const markTag = 1 << 62

func (j *joinBeforeAsk) Watch(deliver func(backends.Change)) backends.WatchSet {
	marked := make(chan struct{}, 1)
	set := j.Driver.Watch(func(c backends.Change) {
		if c.Tag == markTag {
			marked <- struct{}{}
			return
		}
		deliver(c)
	})
	return &heldRosterSet{WatchSet: set, j: j, marked: marked}
}

// heldRosterSet is a joinBeforeAsk's watch set.
type heldRosterSet struct {
	backends.WatchSet
	j      *joinBeforeAsk
	marked chan struct{}
	once   bool // the first request for j.election was held
}

func (h *heldRosterSet) Wait(req backends.WatchRequest) {
	if req.Kind != backends.WatchRoster || req.Known.Election != h.j.election || h.once {
		h.WatchSet.Wait(req)
		return
	}
	h.once = true
	go func() { // the elector's loop asks: hold the request elsewhere
		if err := h.hold(); err != nil {
			h.j.fail <- err
			return
		}
		h.WatchSet.Wait(req)
	}()
}

// hold joins j's record, then another election's, and waits until the
// set has answered on the latter.
func (h *heldRosterSet) hold() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	const mark = "seen/mark"
	recs, rev, err := h.j.List(ctx, mark)
	if err != nil {
		return err
	}
	h.WatchSet.Wait(backends.WatchRequest{Kind: backends.WatchRoster, Tag: markTag, Known: backends.Record{Election: mark, Revision: rev}, Digest: backends.RosterDigest(recs)})
	if err := h.j.join(ctx); err != nil {
		return err
	}
	ss, err := h.j.NewSession(ctx, 30*time.Second)
	if err != nil {
		return err
	}
	h.j.marker <- ss // closed by the test once it is done: the close is a write
	if _, err := ss.Join(ctx, mark, []byte(`{"identity":"mark"}`)); err != nil {
		return err
	}
	select {
	case <-h.marked:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
