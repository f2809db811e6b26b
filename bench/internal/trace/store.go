package trace

import (
	"context"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// store is a traced backends.Driver. How it ends a term with a target
// is in its Limits, which the traced store reports as they are.
type store struct {
	in  backends.Driver
	who string
	log Recorder
}

// Wrap returns in with every call, its sessions' and its watch sets'
// included, recorded in log under who.
func Wrap(in backends.Driver, who string, log Recorder) backends.Driver {
	return &store{in: in, who: who, log: log}
}

func (s *store) rec(op string, start time.Time, err error) { s.log.Record(s.who, op, start, err) }

func (s *store) Capabilities() backends.Capabilities { return s.in.Capabilities() }
func (s *store) Get(ctx context.Context, election string) (backends.Record, error) {
	t := time.Now()
	r, err := s.in.Get(ctx, election)
	s.rec("Get", t, err)
	return r, err
}

func (s *store) NewSession(ctx context.Context, ttl time.Duration) (backends.Session, error) {
	t := time.Now()
	in, err := s.in.NewSession(ctx, ttl)
	s.rec("NewSession", t, err)
	if err != nil {
		return nil, err
	}
	return &session{in: in, s: s}, nil
}

func (x *session) Enqueue(ctx context.Context, election string) (backends.Record, error) {
	t := time.Now()
	r, err := x.in.Enqueue(ctx, election)
	x.s.rec("Enqueue", t, err)
	return r, err
}

func (s *store) Ahead(ctx context.Context, election string, token uint64) (backends.Record, error) {
	t := time.Now()
	r, err := s.in.Ahead(ctx, election, token)
	s.rec("Ahead", t, err)
	return r, err
}

func (s *store) Dequeue(ctx context.Context, entry backends.Record) error {
	t := time.Now()
	err := s.in.Dequeue(ctx, entry)
	s.rec("Dequeue", t, err)
	return err
}

func (x *session) Join(ctx context.Context, election string, value []byte) (backends.Record, error) {
	t := time.Now()
	r, err := x.in.Join(ctx, election, value)
	x.s.rec("Join", t, err)
	return r, err
}

func (x *session) Leave(ctx context.Context, election string) error {
	t := time.Now()
	err := x.in.Leave(ctx, election)
	x.s.rec("Leave", t, err)
	return err
}

func (s *store) List(ctx context.Context, election string) ([]backends.Record, uint64, error) {
	t := time.Now()
	r, rev, err := s.in.List(ctx, election)
	s.rec("List", t, err)
	return r, rev, err
}

func (x *session) Proclaim(ctx context.Context, election string, token uint64, value []byte) (backends.Record, error) {
	t := time.Now()
	r, err := x.in.Proclaim(ctx, election, token, value)
	x.s.rec("Proclaim", t, err)
	return r, err
}

func (s *store) GuardedPut(ctx context.Context, w backends.Guarded) error {
	t := time.Now()
	err := s.in.GuardedPut(ctx, w)
	s.rec("GuardedPut", t, err)
	return err
}

// Watch records each delivered change as a notification, a roster's as
// "notify roster".
func (s *store) Watch(deliver func(backends.Change)) backends.WatchSet {
	w := &watchSet{in: s.in.Watch(func(c backends.Change) {
		what := "notify"
		if c.Roster {
			what = "notify roster"
		}
		s.rec(what, time.Now(), c.Err)
		deliver(c)
	}), s: s}
	return w
}

// watchSet is a traced WatchSet: registrations are recorded as instants.
type watchSet struct {
	in backends.WatchSet
	s  *store
}

func (w *watchSet) Wait(req backends.WatchRequest) {
	w.s.rec(watchOps[req.Kind], time.Now(), nil)
	w.in.Wait(req)
}

// watchOps names a WatchSet request by its kind, as the tracer records it.
var watchOps = map[backends.WatchKind]string{
	backends.WatchKey:    "WatchSet.Wait",
	backends.WatchEntry:  "WatchSet.WaitGone",
	backends.WatchRoster: "WatchSet.WaitRoster",
}

func (w *watchSet) Stop(election string, kind backends.WatchKind) { w.in.Stop(election, kind) }
func (w *watchSet) Close() error                                  { return w.in.Close() }

// session is a traced Session.
type session struct {
	in backends.Session
	s  *store
}

func (x *session) ID() string         { return x.in.ID() }
func (x *session) TTL() time.Duration { return x.in.TTL() }
func (x *session) Create(ctx context.Context, election string, value []byte) (backends.Record, error) {
	t := time.Now()
	r, err := x.in.Create(ctx, election, value)
	x.s.rec("Create", t, err)
	return r, err
}

func (x *session) End(ctx context.Context, req backends.End) (backends.Record, error) {
	t := time.Now()
	r, err := x.in.End(ctx, req)
	x.s.rec(endOp(req), t, err)
	return r, err
}

// endOp names an End by what it does: Delete or Pass, with "Leaving" if
// it leaves the roster too.
func endOp(req backends.End) string {
	op := "Delete"
	if req.To != nil {
		op = "Pass"
	}
	if req.Leave {
		op += "Leaving"
	}
	return op
}

func (x *session) KeepAlive(ctx context.Context) error {
	t := time.Now()
	err := x.in.KeepAlive(ctx)
	x.s.rec("KeepAlive", t, err)
	return err
}

func (x *session) Close(ctx context.Context) error {
	t := time.Now()
	err := x.in.Close(ctx)
	x.s.rec("Close", t, err)
	return err
}
