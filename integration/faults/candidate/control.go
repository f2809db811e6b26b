package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/leasehold/leasehold/lease"
)

// control reports the candidate's policy events to the suite (-control):
// each handover it made, by cause (lease.PolicyMetrics), each leadership
// it lost, by reason (lease.Metrics), and the outcome of each HandOver
// the suite asked for (SIGUSR1). It is the candidate's
// lease.Metrics; its reports go out in order from a goroutine of its own,
// so that the elector never blocks on it.
type control struct {
	*endings
	c    config
	http *http.Client
	out  chan url.Values
	done chan struct{}
}

func newControl(c config) *control {
	ctl := &control{endings: newEndings(), c: c, http: &http.Client{Timeout: 2 * time.Second}, out: make(chan url.Values, 256), done: make(chan struct{})}
	go ctl.send()
	return ctl
}

// report queues one event for the suite; it drops it if the queue is full
// or there is no -control.
func (ctl *control) report(kind, detail string) {
	if ctl.c.control == "" {
		return
	}
	select {
	case ctl.out <- url.Values{"id": {ctl.c.id}, "kind": {kind}, "detail": {detail}}:
	default:
		fmt.Fprintln(os.Stderr, "control: queue full, dropped", kind, detail)
	}
}

// send posts the queued events until close.
func (ctl *control) send() {
	defer close(ctl.done)
	for v := range ctl.out {
		resp, err := ctl.http.PostForm(ctl.c.control, v)
		if err != nil {
			fmt.Fprintln(os.Stderr, "control:", err)
			continue
		}
		resp.Body.Close()
	}
}

// close sends what is queued (for up to 2 s) and stops.
func (ctl *control) close() {
	close(ctl.out)
	select {
	case <-ctl.done:
	case <-time.After(2 * time.Second):
	}
}

// handOverOnSignal makes the leader hand over on each SIGUSR1, to the
// candidate named in <history>.to ("<seq> <target>"; no target: the next
// in line), and reports "<seq> <outcome>" ("handover-result": ok,
// not-leading, no-candidate, lost, timeout or error), until ctx ends.
func (ctl *control) handOverOnSignal(ctx context.Context, w *writer) {
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGUSR1)
	defer signal.Stop(sig)
	for {
		select {
		case <-ctx.Done():
			return
		case <-sig:
		}
		b, _ := os.ReadFile(ctl.c.hist + ".to")
		seq, to, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
		l := w.current()
		if l == nil {
			ctl.report("handover-result", seq+" not-leading")
			continue
		}
		hctx, cancel := context.WithTimeout(ctx, 3*ctl.c.ttl)
		err := l.HandOver(hctx, strings.TrimSpace(to))
		cancel()
		ctl.report("handover-result", seq+" "+outcome(err))
		if err != nil {
			fmt.Fprintln(os.Stderr, "handover to", to+":", err)
		}
	}
}

// outcome classifies HandOver's error for the suite.
func outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, lease.ErrNoCandidate):
		return "no-candidate"
	case errors.Is(err, lease.ErrNotHandedOver):
		return "not-handed-over"
	case errors.Is(err, lease.ErrLost):
		return "lost"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	return "error"
}

// The lease.Metrics and lease.PolicyMetrics methods: the endings', and
// Handover and Lost are reported.

// Lost reports why a leadership of this candidate ended (a lease.Reason*
// constant), so that the suite can tell a term lost from one handed over.
func (ctl *control) Lost(_, reason string) { ctl.report("lost", reason) }

// Handover reports a handover this candidate made, by cause.
func (ctl *control) Handover(election, cause string) {
	ctl.endings.Handover(election, cause)
	ctl.report("yield", cause)
}

var _ lease.PolicyMetrics = (*control)(nil)
