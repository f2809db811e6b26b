// Command candidate is one candidate process of the fault suite
// (package integration/faults): it campaigns for one election through
// package lease and, while it believes it leads, writes every -every to a
// fenced HTTP resource and to a guarded store write, recording each
// leadership and each write in a history file (package history). Right
// before each write it asks its Leadership whether it still holds
// (-check: Valid, or the context-based Err of old), and stops acting on
// a no. After each leadership it makes one straggling write with the old
// token (see writer.straggle). It stops on SIGTERM, resigning if it leads.
// With -shards it is a member of a shard group instead (see runMember).
// The suite builds and runs it; it is not meant for other use.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/fencing"
	"github.com/leasehold/leasehold/integration/faults/consulclient"
	"github.com/leasehold/leasehold/integration/history"
	"github.com/leasehold/leasehold/internal/driver"
	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/zookeeper"
)

type config struct {
	backend, addr, election, id, hist, fence, check string
	ttl, tick, every                                time.Duration
	straggle, queue, debug                          bool
	// The election policies (docs/policies.md) and the suite's control.
	priority     int
	preempt      bool
	preemptAfter time.Duration
	control      string // URL the candidate reports policy events to
	// A member of a shard group (-shards), not a candidate of one election.
	shards int
	settle time.Duration
}

func main() {
	var c config
	flag.StringVar(&c.backend, "backend", "etcd", "etcd, zookeeper or consul")
	flag.StringVar(&c.addr, "addr", "", "store addresses (host:port), comma-separated: one per store node")
	flag.StringVar(&c.election, "election", "faults", "election name")
	flag.StringVar(&c.id, "id", "", "candidate id (its identity)")
	flag.StringVar(&c.hist, "history", "", "history file to append to")
	flag.StringVar(&c.fence, "fence", "", "URL of the fenced resource")
	flag.DurationVar(&c.ttl, "ttl", 2*time.Second, "lease TTL")
	flag.DurationVar(&c.tick, "tick", 200*time.Millisecond, "ZooKeeper tickTime")
	flag.DurationVar(&c.every, "every", 10*time.Millisecond, "write period while leading")
	flag.BoolVar(&c.straggle, "straggle", true, "write once more with the old token after each leadership ends")
	flag.BoolVar(&c.queue, "queue", false, "wait in the ordered queue (lease.WaitQueue); false: in key mode (lease.WaitKey)")
	flag.IntVar(&c.priority, "priority", 0, "lease.Options.Priority")
	flag.BoolVar(&c.preempt, "preempt", false, "lease.Options.Preempt")
	flag.DurationVar(&c.preemptAfter, "preempt-after", 0, "lease.Options.PreemptAfter (0: TTL)")
	flag.StringVar(&c.control, "control", "", "URL to report policy events to (handovers by cause, HandOver outcomes); "+
		"SIGUSR1 makes a leader hand over to the candidate named in <history>.to (empty: the next in line)")
	flag.BoolVar(&c.debug, "debug", false, "log at debug level: the elector's every action and watch answer")
	flag.StringVar(&c.check, "check", "valid", "the check before each write: valid (Leadership.Valid) or err (Leadership.Err, which a pause can outrun)")
	flag.IntVar(&c.shards, "shards", 0, "be a member of the shard group -election with this many shards (shard.Join), "+
		"writing to <fence>/s/<shard> while holding a shard, with no guarded store writes; 0: a candidate of election -election")
	flag.DurationVar(&c.settle, "settle", 0, "shard.Options.Settle of a member (-shards; 0: the default, TTL)")
	flag.Parse()
	if c.check != "valid" && c.check != "err" {
		fmt.Fprintf(os.Stderr, "candidate: -check %q: want valid or err\n", c.check)
		os.Exit(2)
	}
	if err := run(c); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "candidate", c.id+":", err)
		os.Exit(1)
	}
}

func run(c config) error {
	rec, err := history.Create(c.hist, c.id)
	if err != nil {
		return err
	}
	defer rec.Close()
	store, closeStore, err := dial(c)
	if err != nil {
		return err
	}
	defer closeStore()
	opts := &slog.HandlerOptions{}
	if c.debug {
		opts.Level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, opts))
	if c.shards > 0 {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		defer stop()
		return runMember(ctx, c, store, rec, log)
	}
	ctl := newControl(c)
	defer ctl.close()
	e, err := lease.New(store, lease.Options{TTL: c.ttl, Identity: c.id, Logger: log, Wait: waitMode(c.queue),
		Priority: c.priority, Preempt: c.preempt, PreemptAfter: c.preemptAfter, FollowRoster: true, Metrics: ctl})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	w := &writer{c: c, rec: rec, gw: driver.Of(store), http: &http.Client{}, ctl: ctl, ends: ctl.endings}
	go ctl.handOverOnSignal(ctx, w)
	err = e.Run(ctx, c.election, w.lead)
	cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return errors.Join(err, e.Close(cctx))
}

// waitMode is the wait mode the -queue flag selects.
func waitMode(queue bool) lease.WaitMode {
	if queue {
		return lease.WaitQueue
	}
	return lease.WaitKey
}

// dial makes the store the candidate campaigns on, through the addresses
// of c.addr (every node of the store).
func dial(c config) (*backends.Store, func(), error) {
	addrs := strings.Split(c.addr, ",")
	switch c.backend {
	case "etcd":
		cli, err := clientv3.New(clientv3.Config{Endpoints: addrs, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
		if err != nil {
			return nil, nil, err
		}
		s, err := etcd.New(cli, etcd.Options{})
		return s, func() { cli.Close() }, err
	case "zookeeper":
		s, err := zookeeper.New(addrs, zookeeper.Options{TickTime: c.tick})
		if err != nil {
			return nil, nil, err
		}
		return s, func() { _ = s.Close() }, nil
	case "consul":
		// Candidates spread over the servers: c1 starts on the first.
		n, _ := strconv.Atoi(strings.TrimLeft(c.id, "c"))
		cli, err := consulclient.New(addrs, max(n-1, 0))
		if err != nil {
			return nil, nil, err
		}
		// Sessions on a node of their own: Consul ends a session when
		// its node fails, and these candidates talk to the servers the
		// store faults kill (README, "Consul sessions end with their node").
		// Odd-numbered candidates wait on their keys, even ones in the
		// Store's shared query (consul.Options.KeyQueries), so that a
		// run covers both.
		kq := 0
		if n%2 == 1 {
			kq = 2
		}
		s, err := consul.New(cli, consul.Options{SessionNode: "leasehold-faults", KeyQueries: kq})
		return s, func() {}, err
	}
	return nil, nil, fmt.Errorf("unknown backend %q", c.backend)
}

// writer acts while the candidate leads.
type writer struct {
	c    config
	rec  *history.Recorder
	gw   backends.Driver
	http *http.Client
	ctl  *control
	ends *endings // dates the ends of its leaderships

	mu  sync.Mutex
	cur *lease.Leadership // the leadership lead acts on, or nil
}

// current returns the leadership lead acts on, or nil.
func (w *writer) current() *lease.Leadership {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cur
}

// setCurrent sets the leadership lead acts on (nil: none).
func (w *writer) setCurrent(l *lease.Leadership) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cur = l
}

// lead records the leadership and writes every c.every until ctx ends or
// the check before a write says the leadership ended. It records that it
// stopped believing it leads the moment either happens, even while a
// write it began under a yes is still in flight (history check b is about
// that belief; check e about the writes, dated by their checks).
func (w *writer) lead(ctx context.Context, l *lease.Leadership) error {
	tok := uint64(l.Token)
	from := history.Now()
	_ = w.rec.Record(history.Event{Kind: history.Lead, At: from, Token: tok})
	w.setCurrent(l)
	defer w.setCurrent(nil)
	var once sync.Once
	unlead := func() {
		once.Do(func() {
			at := w.ends.end(l.Election, from, history.Now())
			_ = w.rec.Record(history.Event{Kind: history.Unlead, At: at, Token: tok})
		})
	}
	stop := context.AfterFunc(ctx, unlead)
	defer stop()
	t := time.NewTicker(w.c.every)
	defer t.Stop()
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
		case <-t.C:
			if w.fenced(ctx, l) && w.guarded(ctx, l, n) {
				continue
			}
		}
		unlead()
		w.straggle(l.Token, n)
		return nil
	}
}

// holds is the check right before a write: nil while the leadership
// holds, as far as -check can tell.
func (w *writer) holds(l *lease.Leadership) error {
	if w.c.check == "err" {
		return l.Err()
	}
	return l.Valid()
}

// straggle makes one more write to each guard with the ended term's
// token, after the candidate stopped acting: the write of a process that
// was paused between its last check and its write. The guards must reject
// it once a successor is known (history check c).
func (w *writer) straggle(tok fencing.Token, n int) {
	if !w.c.straggle {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), w.c.ttl/3)
	defer cancel()
	w.sendFenced(ctx, tok, history.Now())
	if w.c.shards > 0 {
		return
	}
	w.sendGuarded(ctx, uint64(tok), n, history.Now(), w.storePut)
}

// fenced checks the leadership and, if it holds, sends one write to the
// fenced resource. It reports false if the check said no. The write is
// dated just before the check: a write whose check said yes is dated no
// later than the check (history check e). Once the check said yes, the
// write goes out whatever happens to the leadership's context meanwhile,
// as a real one would: cancelling a request in flight cannot unsend it.
func (w *writer) fenced(ctx context.Context, l *lease.Leadership) bool {
	sent := history.Now()
	if w.holds(l) != nil {
		return false
	}
	w.sendFenced(context.WithoutCancel(ctx), l.Token, sent)
	return true
}

// guarded checks the leadership and, if it holds, makes one guarded store
// write: Leadership.GuardedPut (which checks Valid again) with -check
// valid, the store's own with -check err. It reports false if a check
// said no. A shard group's member (-shards) makes none, and reports true.
func (w *writer) guarded(ctx context.Context, l *lease.Leadership, n int) bool {
	if w.c.shards > 0 {
		return true // a shard group's member writes to its fenced resources only
	}
	sent := history.Now()
	if w.holds(l) != nil {
		return false
	}
	put := w.storePut
	if w.c.check == "valid" {
		put = func(ctx context.Context, _ uint64, key string, value []byte) error {
			return l.GuardedPut(ctx, key, value)
		}
	}
	return !errors.Is(w.sendGuarded(context.WithoutCancel(ctx), uint64(l.Token), n, sent, put), lease.ErrLost)
}

// storePut is the store's own guarded write, unchecked.
func (w *writer) storePut(ctx context.Context, tok uint64, key string, value []byte) error {
	return w.gw.GuardedPut(ctx, backends.Guarded{Election: w.c.election, Token: tok, Key: key, Value: value})
}

// sendFenced sends one write to the fenced resource and records its
// outcome, dated sent (a request that got no answer is not recorded:
// nothing was accepted that the candidate knows of).
func (w *writer) sendFenced(ctx context.Context, tok fencing.Token, sent history.Time) {
	ctx, cancel := context.WithTimeout(ctx, w.c.ttl/3)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.c.fence, strings.NewReader(w.c.id))
	if err != nil {
		return
	}
	fencing.SetHeader(req.Header, tok)
	resp, err := w.http.Do(req)
	if err != nil {
		return
	}
	resp.Body.Close()
	_ = w.rec.Record(history.Event{Kind: history.Write, Guard: history.GuardFence, Token: uint64(tok),
		Sent: sent, Accepted: resp.StatusCode == http.StatusOK})
}

// sendGuarded makes one guarded store write through put and records its
// outcome, dated sent; an error other than ErrNotLeader (outcome unknown,
// or ErrLost: not sent) is not recorded, and is returned.
func (w *writer) sendGuarded(ctx context.Context, tok uint64, n int, sent history.Time,
	put func(ctx context.Context, tok uint64, key string, value []byte) error) error {
	cctx, cancel := context.WithTimeout(ctx, w.c.ttl/3)
	defer cancel()
	err := put(cctx, tok, "faults/value", fmt.Appendf(nil, "%s %d %d", w.c.id, tok, n))
	if err != nil && !errors.Is(err, backends.ErrNotLeader) {
		return err
	}
	_ = w.rec.Record(history.Event{Kind: history.Write, Guard: history.GuardStore, Token: tok,
		Sent: sent, Accepted: err == nil})
	return nil
}
