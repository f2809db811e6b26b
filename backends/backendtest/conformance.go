package backendtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// RunConformanceTests runs the contract of backends.Driver,
// backends.Session and backends.WatchSet against the store h connects to:
// every method, as every store implements all of them (the GuardedPut,
// Queue, Roster, Proclaim and WatchSet tests among them). The Handover
// tests run the ends of
// a term with a target that the store's Capabilities declare: a pass, or a
// marker; and that of the layout marker (backends.Layout) if h is a
// Layouter.
func RunConformanceTests(t *testing.T, h Harness) {
	tests := map[string]func(*testing.T, Harness){
		"GetAbsent":          testGetAbsent,
		"CreateThenHeld":     testCreateThenHeld,
		"CreateIsIdempotent": testCreateIdempotent,
		"CreateRace":         testCreateRace,
		"DeleteOnlyOwnToken": testDeleteOwnToken,
		"TokensIncrease":     testTokensIncrease,
		"WatchKeySeesDelete": testWaitSeesDelete,
		"CloseReleasesKeys":  testCloseReleases,
		"ExpiredSession":     testExpiredSession,
		"TTLExpiry":          testTTLExpiry,
		"SeveredConnection":  testSevered,
		"GuardedPut":         runGuardedTests,
		"NameSpace":          func(t *testing.T, h Harness) { testNameSpace(t, h, false) },
		"NameSpaceQueue":     func(t *testing.T, h Harness) { testNameSpace(t, h, true) },
		"Queue":              runQueueTests,
		"Roster":             runRosterTests,
		"Proclaim":           runProclaimTests,
		"Handover":           runHandoverTests,
		"WatchSet":           runWatchSetTests,
		"RosterWatchSet":     runRosterSetTests, // WatchRoster requests
		"Layout":             runLayoutTests,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, h)
		})
	}
}

func mustCreate(t *testing.T, ss backends.Session, election, value string) backends.Record {
	t.Helper()
	rec, err := ss.Create(Context(t, 10*time.Second), election, []byte(value))
	if err != nil {
		t.Fatalf("Create(%q): %v", election, err)
	}
	return rec
}

// createFreed creates election's key with ss once its holder's session
// ended, retrying plain errors every 5 ms until ctx ends: a store may
// refuse the freed key for a short while (Consul's lock-delay, 1 ms by
// default), and says so with a plain error. ErrKeyExists and permanent
// errors fail at once.
func createFreed(t *testing.T, ctx context.Context, ss backends.Session, election, value string) backends.Record {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		rec, err := ss.Create(ctx, election, []byte(value))
		switch {
		case err == nil:
			return rec
		case errors.Is(err, backends.ErrKeyExists), errors.Is(err, backends.ErrPermission):
			t.Fatalf("Create(%q) after its holder's session ended: %v", election, err)
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("Create(%q) after its holder's session ended: %v", election, err)
		}
	}
}

func mustGet(t *testing.T, s backends.Driver, election string) backends.Record {
	t.Helper()
	rec, err := s.Get(Context(t, 10*time.Second), election)
	if err != nil {
		t.Fatalf("Get(%q): %v", election, err)
	}
	return rec
}

func testGetAbsent(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	rec := mustGet(t, s, Election(t))
	if rec.Exists() || rec.Owner != "" || rec.Value != nil || rec.Revision == 0 {
		t.Fatalf("Get of an absent key = %+v, want Token 0, no owner or value, a Revision", rec)
	}
}

func testCreateThenHeld(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	a, b := newSession(t, s), newSession(t, s)
	el := Election(t)
	rec := mustCreate(t, a, el, "alice")
	if rec.Token == 0 || rec.Owner != a.ID() || string(rec.Value) != "alice" || rec.Election != el {
		t.Fatalf("Create = %+v, want a token, owner %s, value alice", rec, a.ID())
	}
	got, err := b.Create(Context(t, 10*time.Second), el, []byte("bob"))
	if !errors.Is(err, backends.ErrKeyExists) {
		t.Fatalf("second session's Create error = %v, want ErrKeyExists", err)
	}
	if got.Token != rec.Token || got.Owner != a.ID() || string(got.Value) != "alice" || got.Revision < rec.Token {
		t.Fatalf("holder record = %+v, want token %d owner %s value alice", got, rec.Token, a.ID())
	}
	if g := mustGet(t, s, el); g.Token != rec.Token || g.Owner != a.ID() {
		t.Fatalf("Get = %+v, want the holder's record", g)
	}
}

func testCreateIdempotent(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	a := newSession(t, s)
	el := Election(t)
	first := mustCreate(t, a, el, "alice")
	again := mustCreate(t, a, el, "alice")
	if again.Token != first.Token || again.Owner != a.ID() {
		t.Fatalf("repeated Create = %+v, want the same key %+v", again, first)
	}
}

func testCreateRace(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	const n = 8
	el := Election(t)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		ss := newSession(t, s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = ss.Create(Context(t, 10*time.Second), el, []byte(fmt.Sprint(i)))
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, backends.ErrKeyExists):
			t.Errorf("Create: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d of %d racing sessions created the key, want exactly 1", won, n)
	}
}

func testDeleteOwnToken(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	a := newSession(t, s)
	el := Election(t)
	rec := mustCreate(t, a, el, "alice")
	ctx := Context(t, 10*time.Second)
	if err := Release(ctx, a, el, rec.Token+1); !errors.Is(err, backends.ErrNotFound) {
		t.Fatalf("Delete with another token: %v, want ErrNotFound", err)
	}
	if g := mustGet(t, s, el); g.Token != rec.Token {
		t.Fatalf("after a Delete with the wrong token, Get = %+v, want the key kept", g)
	}
	if err := Release(ctx, a, el, rec.Token); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if g := mustGet(t, s, el); g.Exists() {
		t.Fatalf("after Delete, Get = %+v, want absent", g)
	}
	if err := Release(ctx, a, el, rec.Token); !errors.Is(err, backends.ErrNotFound) {
		t.Fatalf("Delete of an absent key: %v, want ErrNotFound", err)
	}
}

func testTokensIncrease(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	var last uint64
	for i := range 5 {
		ss := newSession(t, s)
		rec := mustCreate(t, ss, el, fmt.Sprint(i))
		if rec.Token <= last {
			t.Fatalf("term %d token %d, want above %d", i, rec.Token, last)
		}
		last = rec.Token
		if i%2 == 0 {
			if err := Release(Context(t, 10*time.Second), ss, el, rec.Token); err != nil {
				t.Fatal(err)
			}
		} else if err := ss.Close(Context(t, 10*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
}
