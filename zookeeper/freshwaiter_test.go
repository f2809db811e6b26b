package zookeeper

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// TestFreshWaiterNoSync: a waiter that joins a held election in line
// makes no sync on its way to its watch: its Create's read follows the
// multi the server refused, its Ahead reads on the connection that made
// its entry, and its watch's first read on a connection that has seen
// the entry ahead. Each sync is a round trip a hand-off to a waiter that
// joined just before the release waits for. The key is then passed to it.
func TestFreshWaiterNoSync(t *testing.T) {
	f := newWatchFixture(t)
	el := uniqueName("fresh-")
	holder, err := f.pss.Enqueue(f.ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	held := f.create(t, el)
	syncs := make(chan string, 1<<10)
	setHook(t, &testHookSync, func(path string) { syncs <- path })
	reads := hookReads(t)
	watching := hookWatching(t)

	if rec, err := f.ss.Create(f.ctx, el, []byte("waiter")); !errors.Is(err, backends.ErrKeyExists) || rec.Owner != f.pss.ID() {
		t.Fatalf("Create = %+v, %v; want ErrKeyExists, held by %s", rec, err, f.pss.ID())
	}
	mine, err := f.ss.Enqueue(f.ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	ahead, err := f.s.Ahead(f.ctx, el, mine.Token)
	if err != nil || ahead.Token != holder.Token || ahead.Owner != f.pss.ID() {
		t.Fatalf("Ahead = %+v, %v; want the holder's entry %+v", ahead, err, holder)
	}
	w, ch := watchOn(t, f.s)
	w.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 1, Known: ahead})
	awaitWatching(t, watching, el)
	for len(syncs) > 0 {
		t.Errorf("the waiter synced %s", <-syncs)
	}
	for len(reads) > 0 {
		if <-reads {
			t.Error("the watch's first read synced")
		}
	}
	join(t, f.s, f.ss, el, "waiter")
	passed, err := f.pss.End(f.ctx, backends.End{Election: el, Token: held.Token,
		To: &backends.Target{Session: f.ss.ID(), Entry: mine.Token, Value: []byte("waiter")}})
	if err != nil {
		t.Fatal(err)
	}
	if c := nextChange(t, ch); c.Tag != 1 || c.Err != nil || c.Record.Owner != f.ss.ID() || c.Record.Token != passed.Token {
		t.Fatalf("answer %+v, want tag 1 with the key passed, %+v", c, passed)
	}
}

// TestEnqueueFindsUntoldEntry: an Enqueue that lists and creates at once
// returns the entry the session made before that no call told of (as
// after a create whose reply was lost), and deletes the one it made.
func TestEnqueueFindsUntoldEntry(t *testing.T) {
	f := newWatchFixture(t)
	el := uniqueName("untold-")
	ss := f.ss.(*session)
	qpath := f.s.queuePath(el)
	if err := makeParents(ss.l.conn, qpath+"/x", zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	made, err := ss.l.conn.Create(qpath+"/"+entryPrefix(ss.ID()), nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := f.ss.Enqueue(f.ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	if want := made[strings.LastIndexByte(made, '/')+1:]; entryName(ss.ID(), rec.Token) != want {
		t.Fatalf("Enqueue = %+v, want the untold entry %s", rec, want)
	}
	children, _, err := ss.l.conn.Children(qpath)
	if err != nil || len(children) != 1 {
		t.Fatalf("queue after Enqueue = %v, %v; want the untold entry alone", children, err)
	}
}
