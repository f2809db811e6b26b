package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// errStoreClosed: a call on a Store after its Close.
var errStoreClosed = errors.New("zookeeper: store closed")

// classify wraps an error of a call on a session's connection with the
// backends class it belongs to. Two errors count as unavailable, both for
// requests the server never got: zk.ErrNoServer, which go-zookeeper
// returns only for requests it drops from its send queue while it cannot
// reach any server, and a failed write (a *net.OpError "write", as "use of
// closed network connection" while it reconnects), which go-zookeeper's
// sendData hands to the request whose frame it could not write whole: a
// write fails only before its last byte is out, and the server acts on
// whole frames only. An error after a request may have been sent
// (zk.ErrConnectionClosed, zk.ErrClosing, a timeout) is left
// unclassified: its outcome is unknown.
func classify(what string, ctx context.Context, err error) error {
	var op *net.OpError
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %w: %w", what, backends.ErrCanceled, ctx.Err())
	case errors.Is(err, zk.ErrSessionExpired):
		return fmt.Errorf("%s: %w: %w", what, backends.ErrSessionExpired, err)
	case errors.Is(err, zk.ErrNoServer), errors.As(err, &op) && op.Op == "write":
		return fmt.Errorf("%s: %w: %w", what, backends.ErrUnavailable, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// classifyRead is classify for a read on the Store's own connection. Its
// session is no elector's: if it expired, the server refused the read and
// go-zookeeper opens a new session, so the read is unavailable, not a lost
// session.
func classifyRead(what string, ctx context.Context, err error) error {
	if ctx.Err() == nil && errors.Is(err, zk.ErrSessionExpired) {
		return fmt.Errorf("%s: %w: the store connection's session expired: %w", what, backends.ErrUnavailable, err)
	}
	return classify(what, ctx, err)
}
