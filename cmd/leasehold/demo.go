package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/fencing"
	"github.com/leasehold/leasehold/internal/embedetcd"
	"github.com/leasehold/leasehold/lease"
)

const demoElection = "demo/leader"

// demo is the state of one demo run.
type demo struct {
	outMu    sync.Mutex
	out      io.Writer
	start    time.Time
	srv      *embedetcd.Server
	guard    fencing.Guard
	terms    chan *term // every leadership that began
	mu       sync.Mutex
	accepted int

	ttl          time.Duration
	preemptAfter time.Duration
	within       time.Duration // the longest a step waits for its new term
	cands        []*candidate  // every candidate started, to close at the end
}

type term struct {
	cand      *candidate
	l         *lease.Leadership
	stopped   chan struct{} // closed when the leader stopped acting
	stoppedAt time.Time     // set before stopped is closed
}

type candidate struct {
	name   string
	client *clientv3.Client
	e      *lease.LeaseElector
	stop   context.CancelFunc
	done   chan struct{}
	closed sync.Once
}

const demoUsage = `usage: leasehold demo [--ttl 2s] [--preempt-after 1s]

Starts an in-process etcd on 127.0.0.1 and three candidates; kills the
leader and shows the hand-over with increasing fencing tokens, and a
guarded resource rejecting the stale leader's write; then a resign, a
preemption by candidates of higher priority and an operator's handover to
a named candidate. Exits 0 when every step took place, 1 if one did not.

flags:
`

// demoMaxTTL bounds the demo's --ttl: the demo waits out a crashed
// leader's TTL, so a longer one is no demo.
const demoMaxTTL = time.Hour

// demoTTLs is the --ttl the demo takes: etcd's unit and least TTL, up to
// demoMaxTTL.
const demoTTLs = "whole seconds from 2s to 1h"

func runDemo(ctx context.Context, out io.Writer, args []string) (int, error) {
	d, err := parseDemo(args)
	if err != nil {
		return 2, err
	}
	d.out, d.start, d.terms = out, time.Now(), make(chan *term, 16)
	if err := d.play(ctx); err != nil {
		return 1, err
	}
	return 0, nil
}

// parseDemo parses and checks the demo's flags.
func parseDemo(args []string) (*demo, error) {
	d := &demo{ttl: 2 * time.Second}
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.Var(durationFlag{&d.ttl, demoTTLs}, "ttl", "session TTL, a `duration` in "+demoTTLs)
	fs.DurationVar(&d.preemptAfter, "preempt-after", time.Second, "how long a leader waits before it hands over to a candidate of higher priority (Options.PreemptAfter)")
	fs.Usage = func() { fmt.Fprint(fs.Output(), demoUsage); fs.PrintDefaults() }
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q: demo takes flags only", fs.Arg(0))
	}
	if d.ttl < etcd.MinTTL || d.ttl > demoMaxTTL || d.ttl%time.Second != 0 {
		return nil, fmt.Errorf("--ttl %v: want %s", d.ttl, demoTTLs)
	}
	if d.preemptAfter <= 0 {
		return nil, fmt.Errorf("--preempt-after %v: want a duration above 0", d.preemptAfter)
	}
	d.within = 3*d.ttl + d.preemptAfter + 5*time.Second
	return d, nil
}

// play starts the in-process etcd and plays the demo on it.
func (d *demo) play(ctx context.Context) error {
	srv, err := embedetcd.Start()
	if err != nil {
		return err
	}
	defer srv.Close()
	d.srv = srv
	d.logf("in-process etcd serving at %s", srv.Endpoint)
	err = d.run(ctx)
	d.closeCandidates()
	d.logf("every candidate closed")
	return err
}

// run starts the first three candidates and plays the script.
func (d *demo) run(ctx context.Context) error {
	for i := 1; i <= 3; i++ {
		if err := d.join(ctx, fmt.Sprintf("candidate-%d", i), 0); err != nil {
			return err
		}
	}
	return d.script(ctx)
}

func (d *demo) logf(format string, args ...any) {
	d.outMu.Lock()
	defer d.outMu.Unlock()
	fmt.Fprintf(d.out, "%8.3fs  %s\n", time.Since(d.start).Seconds(), fmt.Sprintf(format, args...))
}

// join starts a candidate of the given priority. Every candidate has
// Preempt on, as lease.Options asks of every candidate of an election.
func (d *demo) join(ctx context.Context, name string, priority int) error {
	c, e, err := d.elector(lease.Options{TTL: d.ttl, Identity: name, Priority: priority,
		Preempt: true, PreemptAfter: d.preemptAfter})
	if err != nil {
		return err
	}
	cctx, stop := context.WithCancel(ctx)
	cand := &candidate{name: name, client: c, e: e, stop: stop, done: make(chan struct{})}
	d.cands = append(d.cands, cand)
	go func() {
		defer close(cand.done)
		_ = e.Run(cctx, demoElection, func(ctx context.Context, l *lease.Leadership) error {
			t := &term{cand: cand, l: l, stopped: make(chan struct{})}
			d.terms <- t
			return d.lead(ctx, t)
		})
	}()
	return nil
}

// elector returns an elector on a client of its own.
func (d *demo) elector(opts lease.Options) (*clientv3.Client, *lease.LeaseElector, error) {
	c, err := d.srv.Client()
	if err != nil {
		return nil, nil, err
	}
	store, err := etcd.New(c, etcd.Options{})
	if err == nil {
		var e *lease.LeaseElector
		if e, err = lease.New(store, opts); err == nil {
			return c, e, nil
		}
	}
	c.Close()
	return nil, nil, err
}

// closeCandidates stops every candidate's campaign, then closes them all
// at once.
func (d *demo) closeCandidates() {
	for _, c := range d.cands {
		c.stop()
	}
	var wg sync.WaitGroup
	for _, c := range d.cands {
		wg.Go(c.close)
	}
	wg.Wait()
}

// lead writes to the guarded resource every 100 ms while leading.
func (d *demo) lead(ctx context.Context, t *term) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if err := d.write(t.cand.name, t.l.Token); err != nil {
			d.logf("%s: write rejected: %v", t.cand.name, err)
		}
		select {
		case <-ctx.Done():
			t.stoppedAt = time.Now()
			close(t.stopped)
			d.logf("%s stops acting: %v", t.cand.name, context.Cause(ctx))
			return nil
		case <-tick.C:
		}
	}
}

func (d *demo) write(name string, tok fencing.Token) error {
	return d.guard.Do(tok, func() error {
		d.mu.Lock()
		d.accepted++
		d.mu.Unlock()
		return nil
	})
}

// close stops the candidate and closes its elector and client. Calls
// after the first wait until the first has closed them.
func (c *candidate) close() {
	c.closed.Do(func() {
		c.stop()
		<-c.done
		closeElector(c.client, c.e)
	})
}

// closeElector closes e, waiting at most 5 s, then its client.
func closeElector(c *clientv3.Client, e *lease.LeaseElector) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = e.Close(ctx)
	c.Close()
}

// crash cuts the candidate off from etcd without resigning, as a killed
// process or a network cut would. Its elector notices only through failed
// renewals.
func (c *candidate) crash() { c.client.Close() }

func (d *demo) nextTerm(ctx context.Context) (*term, error) {
	select {
	case t := <-d.terms:
		d.logf("%s leads with fencing token %d", t.cand.name, t.l.Token)
		return t, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(d.within):
		return nil, errors.New("no leader in time")
	}
}
