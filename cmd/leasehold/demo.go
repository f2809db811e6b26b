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
}

func runDemo(ctx context.Context, out io.Writer, args []string) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	ttl := fs.Duration("ttl", 2*time.Second, "session TTL (etcd: whole seconds, at least 2s)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	d := &demo{out: out, start: time.Now(), terms: make(chan *term, 16)}
	srv, err := embedetcd.Start()
	if err != nil {
		return err
	}
	defer srv.Close()
	d.srv = srv
	d.logf("in-process etcd serving at %s", srv.Endpoint)
	cands := make([]*candidate, 3)
	for i := range cands {
		if cands[i], err = d.startCandidate(ctx, fmt.Sprintf("candidate-%d", i+1), *ttl); err != nil {
			return err
		}
		defer cands[i].close()
	}
	return d.script(ctx, *ttl)
}

func (d *demo) logf(format string, args ...any) {
	d.outMu.Lock()
	defer d.outMu.Unlock()
	fmt.Fprintf(d.out, "%8.3fs  %s\n", time.Since(d.start).Seconds(), fmt.Sprintf(format, args...))
}

func (d *demo) startCandidate(ctx context.Context, name string, ttl time.Duration) (*candidate, error) {
	c, err := d.srv.Client()
	if err != nil {
		return nil, err
	}
	store, err := etcd.New(c, etcd.Options{})
	if err != nil {
		return nil, err
	}
	e, err := lease.New(store, lease.Options{TTL: ttl, Identity: name})
	if err != nil {
		return nil, err
	}
	cctx, stop := context.WithCancel(ctx)
	cand := &candidate{name: name, client: c, e: e, stop: stop, done: make(chan struct{})}
	go func() {
		defer close(cand.done)
		_ = e.Run(cctx, demoElection, func(ctx context.Context, l *lease.Leadership) error {
			t := &term{cand: cand, l: l, stopped: make(chan struct{})}
			d.terms <- t
			return d.lead(ctx, t)
		})
	}()
	return cand, nil
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

func (c *candidate) close() {
	c.stop()
	<-c.done
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = c.e.Close(ctx)
	c.client.Close()
}

// crash cuts the candidate off from etcd without resigning, as a killed
// process or a network cut would. Its elector notices only through failed
// renewals.
func (c *candidate) crash() { c.client.Close() }

func (d *demo) nextTerm(ctx context.Context, within time.Duration) (*term, error) {
	select {
	case t := <-d.terms:
		d.logf("%s leads with fencing token %d", t.cand.name, t.l.Token)
		return t, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(within):
		return nil, errors.New("no leader in time")
	}
}
