package cand

import (
	"bufio"
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// stepCand is a Candidate whose calls return the errors in errs, in turn.
type stepCand struct {
	errs   []error
	closed bool
}

func (c *stepCand) Acquire(context.Context) error { return c.next() }
func (c *stepCand) Release(context.Context) error { return c.next() }
func (c *stepCand) Close()                        { c.closed = true }

func (c *stepCand) next() error {
	err := c.errs[0]
	c.errs = c.errs[1:]
	return err
}

// TestServe: Serve says ready, answers each command with its word and a
// wall time within the call, or err and the error on one line, and
// closes the candidate when its input ends.
func TestServe(t *testing.T) {
	c := &stepCand{errs: []error{nil, nil, errors.New("lost\nit")}}
	before := time.Now()
	var out strings.Builder
	code := Serve(c, strings.NewReader("acquire\nrelease\nacquire\nbogus\n"), &out)
	after := time.Now()
	if code != 0 || !c.closed {
		t.Fatalf("Serve = %d, closed %v; want 0 and the candidate closed", code, c.closed)
	}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != 5 || lines[0] != "ready" || lines[3] != "err lost it" || !strings.HasPrefix(lines[4], "err unknown command") {
		t.Fatalf("Serve wrote %q; want ready, won, released, err lost it, err unknown command", lines)
	}
	for i, word := range map[int]string{1: "won", 2: "released"} {
		w, ns, _ := strings.Cut(lines[i], " ")
		n, err := strconv.ParseInt(ns, 10, 64)
		if w != word || err != nil || time.Unix(0, n).Before(before.Truncate(0)) || time.Unix(0, n).After(after) {
			t.Fatalf("line %q: want %s and a time between %v and %v", lines[i], word, before, after)
		}
	}
}

// TestRemoteExpect: a Remote reads its stamps from the answer lines, and
// fails on an err line, another word, or output that ended.
func TestRemoteExpect(t *testing.T) {
	r := &Remote{lines: make(chan string, 4)}
	r.lines <- "won 1700000000000000000"
	var at time.Time
	if err := r.expect(context.Background(), "won", &at); err != nil || at.UnixNano() != 1700000000000000000 {
		t.Fatalf("expect won = %v, %v", at, err)
	}
	r.lines <- "err no quorum"
	if err := r.expect(context.Background(), "won", &at); err == nil || !strings.Contains(err.Error(), "no quorum") {
		t.Fatalf("expect on an err line = %v, want its message", err)
	}
	r.lines <- "released 5"
	if err := r.expect(context.Background(), "won", &at); err == nil {
		t.Fatal("expect won on a released line: no error")
	}
	close(r.lines)
	if err := r.expect(context.Background(), "won", &at); err == nil || !strings.Contains(err.Error(), "output ended") {
		t.Fatalf("expect after the output ended = %v, want an error saying so", err)
	}
}
