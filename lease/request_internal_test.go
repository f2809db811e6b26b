package lease

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// TestRequestHandover: a leader that follows its candidate list honours a
// request from outside the election, and the requester gets the named
// candidate's term. On etcd every leader follows it, FollowRoster or not
// (its watch set carries the lists). One that does not follow it (here:
// on the etcd store with watch sets that do not carry the lists, as
// another store's might) says so in its record, and a request to it fails at once
// with errors.ErrUnsupported instead of waiting out its context, and
// leaves it leading.
func TestRequestHandover(t *testing.T) {
	etcdStore := embeddedStore(t)
	deaf := deafSets{etcdStore, etcdStore}
	for _, tc := range []struct {
		name   string
		store  backends.Store
		follow bool // FollowRoster
		honour bool
	}{
		{"follow", etcdStore, true, true},
		{"etcd", etcdStore, false, true},
		{"deaf", deaf, false, false},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		el := "request/" + tc.name
		leader, l := leading(t, ctx, tc.store, el, Options{Identity: "leader", FollowRoster: tc.follow})
		next := testElector(t, etcdStore, Options{Identity: "next"})
		go func() { _, _ = next.Campaign(ctx, el) }()
		requester := testElector(t, etcdStore, Options{Identity: "requester"})
		awaitCandidates(t, ctx, requester, el, 2)
		info, err := requester.RequestHandover(ctx, el, "next")
		switch {
		case tc.honour && (err != nil || info.Identity != "next" || info.Token <= l.Token):
			t.Fatalf("%s: request to a following leader: %+v, %v; want next leading with a higher token than %d", tc.name, info, err, l.Token)
		case tc.honour && !errors.Is(l.Err(), ErrHandover):
			t.Fatalf("%s: the following leader's leadership ended with %v, want ErrHandover", tc.name, l.Err())
		case !tc.honour && !errors.Is(err, errors.ErrUnsupported):
			t.Fatalf("%s: request to a leader that does not follow its list: %+v, %v; want errors.ErrUnsupported", tc.name, info, err)
		case !tc.honour && l.Err() != nil:
			t.Fatalf("%s: the refused request ended the leadership: %v", tc.name, l.Err())
		}
		for _, e := range []*LeaseElector{requester, next, leader} {
			_ = e.Close(ctx)
		}
		cancel()
	}
}

// deafSets is a store with rosters whose watch sets do not carry them (no
// backends.RosterWatchSet), made of the etcd store: a leader on it
// follows no roster without FollowRoster. It hides the store's other
// optional interfaces too: it waits by key, and passes no key.
type deafSets struct {
	backends.Store
	backends.Roster
}

// Watch returns the etcd store's set, without its roster requests.
func (d deafSets) Watch(deliver func(backends.Change)) backends.WatchSet {
	return struct{ backends.WatchSet }{d.Store.(backends.Watcher).Watch(deliver)}
}
