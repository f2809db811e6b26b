package faults

import (
	"flag"
	"os"
	"strconv"
	"testing"
	"time"
)

// turns lets a soak's runs start in a set order, at most slots at once:
// the longest first, so that the soak takes about as long as its longest
// run rather than the longest plus whatever go test resumed before it.
// go test resumes paused parallel subtests in no set order, so every run
// is a parallel subtest (go test's -parallel at least the number of runs)
// and waits here for its turn.
type turns struct {
	slots chan struct{}
	next  []chan struct{} // next[i] is closed once run i may take a slot
}

// soakParallel is how many of the soak's runs go at once:
// LEASEHOLD_SOAK_PARALLEL, 3 by default.
func soakParallel(t *testing.T) int {
	v := os.Getenv("LEASEHOLD_SOAK_PARALLEL")
	if v == "" {
		return 3
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("LEASEHOLD_SOAK_PARALLEL=%q: want a count of at least 1", v)
	}
	return n
}

// newTurns returns the turns of n runs, slots at once. If go test's
// -parallel is below n, go test would hold back a run whose turn has
// come behind runs waiting for it: the order is then go test's, and
// -parallel the bound.
func newTurns(t *testing.T, n, slots int) *turns {
	if p, _ := strconv.Atoi(flag.Lookup("test.parallel").Value.String()); p < n {
		t.Logf("soak: %d runs, go test -parallel %d: runs start in go test's order, %d at once", n, p, p)
		return nil
	}
	t.Logf("soak: %d runs, %d at once, the longest first", n, slots)
	return makeTurns(n, slots)
}

// makeTurns returns the turns of n runs, slots at once, run 0's turn
// come.
func makeTurns(n, slots int) *turns {
	tr := &turns{slots: make(chan struct{}, slots), next: make([]chan struct{}, n+1)}
	for i := range tr.next {
		tr.next[i] = make(chan struct{})
	}
	close(tr.next[0])
	return tr
}

// take waits for run i's turn and a free slot; the returned func gives
// the slot back. A nil turns lets every run go at once (go test bounds them).
func (tr *turns) take(i int) (release func()) {
	if tr == nil {
		return func() {}
	}
	<-tr.next[i]
	tr.slots <- struct{}{}
	close(tr.next[i+1])
	return func() { <-tr.slots }
}

// pass gives run i's turn, once it comes, to the next run: for a run
// that will not take it (one that -run left out).
func (tr *turns) pass(i int) {
	if tr == nil {
		return
	}
	go func() {
		<-tr.next[i]
		close(tr.next[i+1])
	}()
}

// TestTurnsPassed: a run left out passes its turn on, so the runs after
// it still start (a soak narrowed with -run waited for ever).
func TestTurnsPassed(t *testing.T) {
	tr := makeTurns(3, 1)
	tr.pass(0)
	tr.pass(1)
	took := make(chan struct{})
	go func() {
		tr.take(2)()
		close(took)
	}()
	select {
	case <-took:
	case <-time.After(10 * time.Second):
		t.Fatal("run 2 did not get its turn after runs 0 and 1 passed theirs")
	}
}

// TestTurns checks that runs take their slots in their order, at most
// slots at once, whatever order they ask in.
func TestTurns(t *testing.T) {
	const n, slots = 5, 2
	tr := makeTurns(n, slots)
	took := make(chan int, n)
	releases := make(chan func(), n)
	for i := n - 1; i >= 0; i-- { // ask in reverse order
		go func() {
			release := tr.take(i)
			took <- i
			releases <- release
		}()
	}
	for want := range n {
		if got := <-took; got != want {
			t.Fatalf("run %d took a slot, want run %d", got, want)
		}
		if want >= slots-1 {
			select {
			case i := <-took:
				t.Fatalf("run %d took a slot while %d were held", i, slots)
			default:
			}
			(<-releases)()
		}
	}
}
