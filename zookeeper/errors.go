package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/errclass"
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
//
// Three errors are permanent, ErrPermission: NOAUTH (zk.ErrNoAuth: a
// node's ACL does not grant the connection's credentials what the request
// needs), AUTH_FAILED (zk.ErrAuthFailed: the server refused the
// credentials themselves) and INVALIDACL (zk.ErrInvalidACL: the ACL given
// to a create is malformed, or uses the auth scheme on a connection with
// no credentials). None is cured by trying again. Nor is a TLS handshake
// that failed on a certificate, as the last failure of a session that no
// server gave (see link.noSession): ErrTLS.
func classify(what string, ctx context.Context, err error) error {
	if backends.CertificateFailure(err) {
		return fmt.Errorf("%s: %w: %w", what, backends.ErrTLS, err)
	}
	return errclass.Wrap(what, ctx, err, errclass.Of(backends.ErrPermission, zk.ErrNoAuth, zk.ErrAuthFailed, zk.ErrInvalidACL),
		errclass.Of(backends.ErrSessionExpired, zk.ErrSessionExpired),
		errclass.Class{Err: backends.ErrUnavailable, Is: func(err error) bool {
			var op *net.OpError
			return errors.Is(err, zk.ErrNoServer) || errors.As(err, &op) && op.Op == "write"
		}})
}

// classifyRead is classify for a read on the Store's reader. Its session
// is not the caller's: if it expired, the server refused the read (and
// on the Store's own connection go-zookeeper opens a new session), so the
// read is unavailable, not a lost session.
func classifyRead(what string, ctx context.Context, err error) error {
	if ctx.Err() == nil && errors.Is(err, zk.ErrSessionExpired) {
		return fmt.Errorf("%s: %w: the store connection's session expired: %w", what, backends.ErrUnavailable, err)
	}
	return classify(what, ctx, err)
}
