package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

func TestClassify(t *testing.T) {
	live := context.Background()
	canceled, cancel := context.WithCancel(live)
	cancel()
	cases := []struct {
		name string
		ctx  context.Context
		err  error
		read bool
		want error // nil: no class
	}{
		{"expired session", live, zk.ErrSessionExpired, false, backends.ErrSessionExpired},
		{"no server: never sent", live, zk.ErrNoServer, false, backends.ErrUnavailable},
		{"connection closed: maybe sent", live, zk.ErrConnectionClosed, false, nil},
		{"closing: maybe sent", live, zk.ErrClosing, false, nil},
		{"write failed: never whole", live, &net.OpError{Op: "write", Net: "tcp", Err: net.ErrClosed}, false, backends.ErrUnavailable},
		{"read failed: maybe sent", live, &net.OpError{Op: "read", Net: "tcp", Err: net.ErrClosed}, false, nil},
		{"no auth", live, zk.ErrNoAuth, false, backends.ErrPermission},
		{"auth failed", live, zk.ErrAuthFailed, false, backends.ErrPermission},
		{"invalid ACL", live, zk.ErrInvalidACL, false, backends.ErrPermission},
		{"no auth, wrapped with a path", live, fmt.Errorf("create parent %q: %w", "/x", zk.ErrNoAuth), false, backends.ErrPermission},
		{"read: no auth", live, zk.ErrNoAuth, true, backends.ErrPermission},
		{"read: auth failed", live, zk.ErrAuthFailed, true, backends.ErrPermission},
		{"canceled wins over no auth", canceled, zk.ErrNoAuth, false, backends.ErrCanceled},
		{"canceled", canceled, zk.ErrConnectionClosed, false, backends.ErrCanceled},
		{"read: store connection's session expired", live, zk.ErrSessionExpired, true, backends.ErrUnavailable},
		{"read: no server", live, zk.ErrNoServer, true, backends.ErrUnavailable},
		{"read: canceled", canceled, zk.ErrSessionExpired, true, backends.ErrCanceled},
	}
	classes := []error{backends.ErrSessionExpired, backends.ErrUnavailable, backends.ErrCanceled,
		backends.ErrKeyExists, backends.ErrNotFound, backends.ErrCompacted, backends.ErrPermission}
	for _, c := range cases {
		f := classify
		if c.read {
			f = classifyRead
		}
		got := f("zookeeper: op", c.ctx, c.err)
		if !errors.Is(got, c.err) && c.ctx.Err() == nil {
			t.Errorf("%s: %v does not wrap %v", c.name, got, c.err)
		}
		for _, class := range classes {
			if errors.Is(got, class) != (class == c.want) {
				t.Errorf("%s: %v: errors.Is(%v) = %v", c.name, got, class, !(class == c.want))
			}
		}
		if c.want == backends.ErrPermission && !strings.Contains(got.Error(), c.err.Error()) {
			t.Errorf("%s: %v does not keep the server's words %q", c.name, got, c.err)
		}
		if c.want == backends.ErrCanceled && !errors.Is(got, context.Canceled) {
			t.Errorf("%s: %v does not wrap context.Canceled", c.name, got)
		}
	}
}
