package lease

import (
	"context"
	"fmt"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/fencing"
	"github.com/leasehold/leasehold/lease/internal/core"
)

// LeaderInfo describes an election's leader as an observer saw it.
type LeaderInfo struct {
	// Election is the election name.
	Election string
	// Identity is the leader's value; empty when there is no leader.
	Identity string
	// Token is the leader's fencing token; 0 when there is no leader.
	Token fencing.Token
	// Session is the ID of the store session holding the key (etcd: the
	// lease ID in hex, as etcdctl prints it).
	Session string
	// Since is when the leader took the key, by its own clock, as it wrote
	// it into the key; for a key not written by this package (Consul's
	// api.Lock, say) or no leader, the local time this observer first saw
	// the state. It is for display only: nothing here decides by it.
	Since time.Time
	// Value is what the leader proclaimed (Leadership.Proclaim); empty if
	// it proclaimed nothing. It changes without a new term: the Token
	// stays.
	Value string
	// Labels are the leader's Options.Labels as its key carries them:
	// written with a proclaimed value, so nil until the leader proclaims.
	// Candidates lists every candidate's labels.
	Labels map[string]string
	// Err is set only on the last value Observe sends before it closes its
	// channel because the store refused to let it read (an error wrapping
	// backends.ErrPermission, with the store's words); its other fields
	// are then zero but Election. Like the last response of an etcd watch
	// that failed, it says why the stream ended.
	Err error
}

// HasLeader reports whether the election had a leader.
func (i LeaderInfo) HasLeader() bool { return i.Token != 0 }

func infoOf(rec backends.Record, seen time.Time) LeaderInfo {
	v := decodeLeader(rec.Value)
	since := v.since
	if since.IsZero() {
		since = seen
	}
	return LeaderInfo{Election: rec.Election, Identity: v.identity,
		Token: fencing.Token(rec.Token), Session: rec.Owner, Since: since, Value: v.extra.Value, Labels: v.extra.Labels}
}

// Leader reads the election's current leader with one linearizable read.
// It returns an error wrapping ErrNoLeader if there is none. It needs no
// session and does not campaign.
func (e *LeaseElector) Leader(ctx context.Context, election string) (LeaderInfo, error) {
	if err := e.check("leader"); err != nil {
		return LeaderInfo{}, err
	}
	if err := backends.ValidateElection(election); err != nil {
		return LeaderInfo{}, fmt.Errorf("lease: leader: %v: %w", err, ErrInvalidOption)
	}
	rec, err := e.store.Get(ctx, election)
	if err != nil {
		return LeaderInfo{}, fmt.Errorf("lease: leader %q: %w", election, err)
	}
	if !rec.Exists() {
		return LeaderInfo{}, fmt.Errorf("lease: leader %q: %w", election, ErrNoLeader)
	}
	return infoOf(rec, time.Now()), nil
}

// Observe streams the election's leader: first the current state, then
// every change, including "no leader" (a LeaderInfo whose HasLeader is
// false) and a new proclaimed Value under the same Token. It needs no
// session and does not campaign. The channel is unbuffered: the observer
// waits for the reader and then looks for the next change, so a reader
// always gets the current state, never a stale one, but a change that
// came and went while the reader was busy (or while the store was
// unreachable) can be skipped.
// Store errors are retried: a lost revision (backends.ErrCompacted) with
// a read at once, any other after RetryInterval (with its jitter: see
// Options.RetryInterval). A permanent
// error (the store refused for want of rights or credentials) is not:
// Observe then sends a last LeaderInfo whose Err wraps
// backends.ErrPermission, within one round trip, and closes the channel.
// Otherwise the channel is closed only when ctx ends or the elector
// closes.
func (e *LeaseElector) Observe(ctx context.Context, election string) (<-chan LeaderInfo, error) {
	if err := e.check("observe"); err != nil {
		return nil, err
	}
	if err := backends.ValidateElection(election); err != nil {
		return nil, fmt.Errorf("lease: observe: %v: %w", err, ErrInvalidOption)
	}
	return stream(e, ctx, func(ctx context.Context, ch chan<- LeaderInfo) { e.observeLoop(ctx, election, ch) }), nil
}

// stream runs loop in a goroutine owned by the elector, with a context
// that ends with ctx or at Close, and returns the unbuffered channel loop
// sends on; the channel is closed when loop returns.
func stream[T any](e *LeaseElector, ctx context.Context, loop func(context.Context, chan<- T)) <-chan T {
	ch := make(chan T)
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(e.ctx, cancel)
	e.io.Add(1)
	go func() {
		defer e.io.Done()
		defer close(ch)
		defer stop()
		defer cancel()
		loop(ctx, ch)
	}()
	return ch
}

func (e *LeaseElector) observeLoop(ctx context.Context, election string, ch chan<- LeaderInfo) {
	fl := follower[backends.Record]{
		read:  func(ctx context.Context) (backends.Record, error) { return e.store.Get(ctx, election) },
		wait:  e.obs.waitKey,
		older: olderRecord,
	}
	var sends core.LeaderSends
	err := fl.run(ctx, e, func(rec backends.Record) {
		info := infoOf(rec, time.Now())
		if v, ok := sends.Next(core.LeaderView{Token: uint64(info.Token), Value: info.Value, Since: info.Since}); ok {
			info.Since = v.Since
			send(ctx, ch, info)
		}
	})
	if err != nil {
		e.log.Debug("observe refused by the store", "election", election, "err", err) // the caller gets it
		send(ctx, ch, LeaderInfo{Election: election, Err: fmt.Errorf("lease: observe %q: %w", election, err)})
	}
}

// olderRecord reports whether got, a wait's answer, is a state of the
// key before known, the state the observer showed last: its Revision is
// below known's. The observer then reads the key again (Get, one
// linearizable read) and does not show got, so that it never goes back
// to a state it has moved past (backends.WatchKey: an answer is a state
// after Known; this holds the observer to it whatever the store's watch
// does).
func olderRecord(known, got backends.Record) bool { return got.Revision < known.Revision }

// send hands v to the reader of ch, unless ctx ends first.
func send[T any](ctx context.Context, ch chan<- T, v T) {
	select {
	case ch <- v:
	case <-ctx.Done():
	}
}
