package backendtest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

type waitResult struct {
	rec backends.Record
	err error
}

func startWait(t *testing.T, s backends.Driver, known backends.Record) <-chan waitResult {
	ch := make(chan waitResult, 1)
	ctx := Context(t, 2*time.Minute)
	go func() {
		rec, err := s.Wait(ctx, known)
		ch <- waitResult{rec, err}
	}()
	return ch
}

func await(t *testing.T, ch <-chan waitResult) backends.Record {
	t.Helper()
	return awaitWithin(t, ch, 20*time.Second)
}

func awaitWithin(t *testing.T, ch <-chan waitResult, d time.Duration) backends.Record {
	t.Helper()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("Wait: %v", r.err)
		}
		return r.rec
	case <-time.After(d):
		t.Fatalf("Wait did not return within %v", d)
	}
	return backends.Record{}
}

func testWaitSeesDelete(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	a := newSession(t, s)
	el := Election(t)
	rec := mustCreate(t, a, el, "alice")
	before := mustGet(t, s, el)
	ch := startWait(t, s, before)
	if err := Release(Context(t, 10*time.Second), a, el, rec.Token); err != nil {
		t.Fatal(err)
	}
	got := await(t, ch)
	if got.Exists() || got.Revision <= before.Revision || got.Election != el {
		t.Fatalf("Wait after delete = %+v, want absent at a revision above %d", got, before.Revision)
	}
}

func testWaitSeesCreate(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	a := newSession(t, s)
	el := Election(t)
	before := mustGet(t, s, el)
	ch := startWait(t, s, before)
	rec := mustCreate(t, a, el, "alice")
	got := await(t, ch)
	if got.Token != rec.Token || got.Owner != a.ID() || string(got.Value) != "alice" {
		t.Fatalf("Wait after create = %+v, want %+v", got, rec)
	}
}

func testWaitPastChange(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	a := newSession(t, s)
	el := Election(t)
	rec := mustCreate(t, a, el, "alice")
	before := mustGet(t, s, el)
	if err := Release(Context(t, 10*time.Second), a, el, rec.Token); err != nil {
		t.Fatal(err)
	}
	got := await(t, startWait(t, s, before))
	if got.Exists() {
		t.Fatalf("Wait from before a delete = %+v, want absent", got)
	}
}

// testWaitIgnoresOthers: changes to other elections move the store's
// revision but do not end a Wait; the next change to its own key does.
func testWaitIgnoresOthers(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	a := newSession(t, s)
	el := Election(t)
	rec := mustCreate(t, a, el, "alice")
	before := mustGet(t, s, el)
	for i := range 3 {
		mustCreate(t, a, fmt.Sprintf("%s-other-%d", el, i), "x")
	}
	ch := startWait(t, s, before)
	for i := range 3 {
		mustCreate(t, a, fmt.Sprintf("%s-more-%d", el, i), "x")
	}
	select {
	case r := <-ch:
		t.Fatalf("Wait returned %+v, %v on changes to other keys", r.rec, r.err)
	default:
	}
	if err := Release(Context(t, 10*time.Second), a, el, rec.Token); err != nil {
		t.Fatal(err)
	}
	if got := await(t, ch); got.Exists() {
		t.Fatalf("Wait = %+v, want absent", got)
	}
}

func testWaitCanceled(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	before := mustGet(t, s, el)
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan error, 1)
	go func() {
		_, err := s.Wait(ctx, before)
		ch <- err
	}()
	cancel()
	select {
	case err := <-ch:
		if !errors.Is(err, backends.ErrCanceled) || !errors.Is(err, context.Canceled) {
			t.Fatalf("Wait error after cancel = %v, want ErrCanceled and context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Wait did not return within 10s of its context's cancel")
	}
}
