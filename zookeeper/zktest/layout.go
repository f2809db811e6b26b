package zktest

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/harness"
	"github.com/leasehold/leasehold/zookeeper"
)

// StoreAt returns a Store like Connect's with the prefix "/" + name.
func (h *Harness) StoreAt(t testing.TB, name string) *backends.Store {
	t.Helper()
	l := harness.NewLink(t, h.Servers, h.proxyOptions())
	opts := h.Options()
	opts.Prefix = "/" + name
	s, err := zookeeper.New(l.Addrs(), opts)
	if err != nil {
		t.Fatalf("zktest: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// LayoutAt reads the layout marker of StoreAt's prefix for name.
func (h *Harness) LayoutAt(t testing.TB, name string) (string, bool) {
	t.Helper()
	data, _, err := h.conn(t).Get("/" + name + "/" + backends.LayoutSegment)
	if errors.Is(err, zk.ErrNoNode) {
		return "", false
	}
	if err != nil {
		t.Fatalf("zktest: read the layout marker: %v", err)
	}
	return string(data), true
}

// SetLayoutAt creates the layout marker of StoreAt's prefix for name,
// and the prefix.
func (h *Harness) SetLayoutAt(t testing.TB, name, value string) {
	t.Helper()
	c, acl := h.conn(t), zk.WorldACL(zk.PermAll)
	if _, err := c.Create("/"+name, nil, 0, acl); err != nil {
		t.Fatalf("zktest: create the prefix: %v", err)
	}
	if _, err := c.Create("/"+name+"/"+backends.LayoutSegment, []byte(value), 0, acl); err != nil {
		t.Fatalf("zktest: write the layout marker: %v", err)
	}
}

// conn returns a go-zookeeper connection to the servers, closed when t
// ends.
func (h *Harness) conn(t testing.TB) *zk.Conn {
	t.Helper()
	dial := func(_, addr string, _ time.Duration) (net.Conn, error) {
		return dial(context.Background(), addr, h.clientTLS())
	}
	c, _, err := zk.Connect(h.Servers, 10*time.Second, zk.WithLogger(nopLogger{}), zk.WithDialer(dial))
	if err != nil {
		t.Fatalf("zktest: connect to %v: %v", h.Servers, err)
	}
	t.Cleanup(c.Close)
	return c
}
