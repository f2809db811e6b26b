package zookeeper

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// TestNestedLayoutLeftovers: nodes the nested layout of older versions
// left behind do not block the new one. A persistent "x" left by an old
// "x/y" reads as no leader and is replaced by a Create; one that still has
// a child fails the Create with an error saying why.
func TestNestedLayoutLeftovers(t *testing.T) {
	servers, tick := testServers(t)
	prefix := uniqueName("/leasehold-old-")
	t.Cleanup(func() { removeTree(t, servers, nil, prefix) })
	c, _, err := zk.Connect(servers, 4*time.Second, zk.WithLogger(nopLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, p := range []string{prefix, prefix + "/x", prefix + "/busy", prefix + "/busy/y"} {
		if _, err := c.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	s := newStore(t, servers, Options{TickTime: tick, Prefix: prefix})
	ctx := testCtx(t)
	if got, err := s.Get(ctx, "x"); err != nil || got.Exists() {
		t.Fatalf("Get of a leftover parent = %+v, %v; want no leader", got, err)
	}
	ss, err := s.NewSession(ctx, max(2*time.Second, 2*tick))
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close(ctx)
	rec, err := ss.Create(ctx, "x", []byte("v"))
	if err != nil || rec.Owner != ss.ID() {
		t.Fatalf("Create over a leftover parent = %+v, %v; want it held", rec, err)
	}
	if got, err := s.Get(ctx, "x"); err != nil || got.Token != rec.Token {
		t.Fatalf("Get after = %+v, %v; want token %d", got, err, rec.Token)
	}
	if _, err := ss.Create(ctx, "busy", nil); err == nil || !strings.Contains(err.Error(), "nested election names") ||
		errors.Is(err, zk.ErrNodeExists) {
		t.Fatalf("Create over a leftover parent with a child: %v; want an error naming the old layout", err)
	}
	if _, err := ss.Create(ctx, "x/y", nil); err != nil {
		t.Fatalf("Create of x/y next to x: %v", err)
	}
}
