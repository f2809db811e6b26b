package faults

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/leasehold/leasehold/integration/history"
)

// buildCandidate builds the candidate program into a temporary directory.
func buildCandidate(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "candidate")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/leasehold/leasehold/integration/faults/candidate")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build candidate: %v\n%s", err, out)
	}
	return bin
}

// cluster is the candidate processes of one run, each behind toxiproxy
// proxies of its own to the store: one per store node.
type cluster struct {
	t         *testing.T
	bin, dir  string
	upstreams []string // every store node's address
	args      []string // backend flags
	tox       *toxiproxy.ApiServer
	next      int
	cands     map[string]*candidate   // by id; running ones
	hists     []string                // every history file
	born      map[string]history.Time // when each candidate was started
	started   func(cd *candidate)     // if set, called after each start
}

type candidate struct {
	id      string
	pol     policy // its priority and preemption
	hist    string // its history file (<hist>.to: its handover target)
	cmd     *exec.Cmd
	proxies []*toxiproxy.Proxy // one per store node
	streams []string           // the directions toxic slowed, for heal
	done    chan struct{}      // closed when the process has exited
}

func newCluster(t *testing.T, bin string, upstreams []string, args []string) *cluster {
	m := toxiproxy.NewMetricsContainer(prometheus.NewRegistry())
	c := &cluster{t: t, bin: bin, dir: t.TempDir(), upstreams: upstreams, args: args,
		tox: toxiproxy.NewServer(m, zerolog.Nop()), cands: map[string]*candidate{}, born: map[string]history.Time{}}
	t.Cleanup(c.killAll)
	return c
}

// start starts one more candidate, with the default policy of its number.
func (c *cluster) start() *candidate { return c.startWith(defaultPolicy(c.next + 1)) }

// startWith starts one more candidate with the given policy.
func (c *cluster) startWith(pol policy) *candidate {
	c.next++
	id := fmt.Sprintf("c%d", c.next)
	var proxies []*toxiproxy.Proxy
	var listen []string
	for j, up := range c.upstreams {
		p := toxiproxy.NewProxy(c.tox, fmt.Sprintf("%s-%d", id, j), "127.0.0.1:0", up)
		if err := p.Start(); err != nil {
			c.t.Fatalf("proxy for %s: %v", id, err)
		}
		proxies, listen = append(proxies, p), append(listen, p.Listen)
	}
	hist := filepath.Join(c.dir, id+".jsonl")
	if err := os.WriteFile(hist, nil, 0o644); err != nil { // there even if it dies at once
		c.t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(c.dir, id+".log"))
	if err != nil {
		c.t.Fatal(err)
	}
	// Odd-numbered candidates wait in the ordered queue, the others watch
	// the leader key: every run mixes both modes in one election.
	args := []string{"-id", id, "-addr", strings.Join(listen, ","), "-history", hist, fmt.Sprintf("-queue=%t", c.next%2 == 1)}
	args = append(append(args, c.args...), pol.args()...)
	cmd := exec.Command(c.bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		c.t.Fatalf("start %s: %v", id, err)
	}
	cd := &candidate{id: id, pol: pol, hist: hist, cmd: cmd, proxies: proxies, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); logf.Close(); close(cd.done) }()
	c.cands[id] = cd
	c.hists = append(c.hists, hist)
	c.born[id] = history.Now()
	if c.started != nil {
		c.started(cd)
	}
	return cd
}

// signal sends sig to a candidate's process (one this test started).
func (cd *candidate) signal(sig syscall.Signal) error { return cd.cmd.Process.Signal(sig) }

// kill SIGKILLs a candidate and waits for its exit.
func (c *cluster) kill(cd *candidate) {
	_ = cd.signal(syscall.SIGKILL)
	<-cd.done
	for _, p := range cd.proxies {
		p.Stop()
	}
	delete(c.cands, cd.id)
}

// stop asks one candidate to stop (SIGTERM: it leaves the election) and
// waits up to 10 s before killing it.
func (c *cluster) stop(cd *candidate) {
	_ = cd.signal(syscall.SIGTERM)
	select {
	case <-cd.done:
	case <-time.After(10 * time.Second):
		c.t.Errorf("candidate %s did not stop within 10s of SIGTERM; killing it", cd.id)
	}
	c.kill(cd)
}

// stopAll asks every candidate to stop (SIGTERM: it resigns and exits)
// and waits up to 10 s each before killing it.
func (c *cluster) stopAll() {
	for _, cd := range c.cands {
		_ = cd.signal(syscall.SIGCONT)
		_ = cd.signal(syscall.SIGTERM)
	}
	for _, cd := range c.cands {
		select {
		case <-cd.done:
		case <-time.After(10 * time.Second):
			c.t.Errorf("candidate %s did not stop within 10s of SIGTERM; killing it", cd.id)
		}
		c.kill(cd)
	}
}

// killAll kills what is left, at cleanup.
func (c *cluster) killAll() {
	for _, cd := range c.cands {
		_ = cd.signal(syscall.SIGCONT)
		c.kill(cd)
	}
}

// logs returns the tail of every candidate's log, for a failure message.
func (c *cluster) logs() string {
	var b strings.Builder
	for i := 1; i <= c.next; i++ {
		out, _ := os.ReadFile(filepath.Join(c.dir, fmt.Sprintf("c%d.log", i)))
		if len(out) > 2000 {
			out = out[len(out)-2000:]
		}
		hist, _ := os.ReadFile(filepath.Join(c.dir, fmt.Sprintf("c%d.jsonl", i)))
		if len(hist) > 1000 {
			hist = hist[len(hist)-1000:]
		}
		fmt.Fprintf(&b, "--- c%d log:\n%s--- c%d history tail:\n%s", i, out, i, hist)
	}
	return b.String()
}

// toxic adds a latency toxic to the given directions (toxiproxy streams)
// of a candidate's links (to every store node).
// A latency of an hour is a black hole that loses nothing: removing the
// toxic delivers what it held.
func (cd *candidate) toxic(latency, jitter time.Duration, streams []string) error {
	cd.streams = streams
	for _, p := range cd.proxies {
		for _, stream := range streams {
			js := fmt.Sprintf(`{"name":"fault_%s","type":"latency","stream":%q,"attributes":{"latency":%d,"jitter":%d}}`,
				stream, stream, latency.Milliseconds(), jitter.Milliseconds())
			if _, err := p.Toxics.AddToxicJson(strings.NewReader(js)); err != nil {
				return fmt.Errorf("add toxic to %s: %w", cd.id, err)
			}
		}
	}
	return nil
}

// heal removes the toxics of toxic.
func (cd *candidate) heal() error {
	for _, p := range cd.proxies {
		for _, stream := range cd.streams {
			if err := p.Toxics.RemoveToxic(context.Background(), "fault_"+stream); err != nil {
				return fmt.Errorf("remove toxic from %s: %w", cd.id, err)
			}
		}
	}
	return nil
}

// record is the driver's history: faults, heals, pauses and crashes.
type record struct {
	t *testing.T
	r *history.Recorder
}

func (r record) add(e history.Event) {
	if err := r.r.Record(e); err != nil {
		r.t.Fatal(err)
	}
}
