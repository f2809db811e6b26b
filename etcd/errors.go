package etcd

import (
	"context"
	"errors"
	"fmt"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/status"

	"github.com/leasehold/leasehold/backends"
)

// classify wraps an etcd client error of s with the backends class it
// belongs to (see classifyErr).
func (s *store) classify(op, election string, ctx context.Context, err error) error {
	return classifyErr(op, election, ctx, err, s.c.Token != "")
}

// classifyErr wraps an etcd client error with the backends class it
// belongs to. Only errors the server returns before acting count as
// unavailable; a transport failure may come after the request was applied,
// so it is left unclassified (outcome unknown). fixedToken says the client
// authenticates with a token it was given (clientv3.Config.Token), which
// clientv3 cannot renew.
func classifyErr(op, election string, ctx context.Context, err error, fixedToken bool) error {
	what := "etcd: " + op
	if election != "" {
		what = fmt.Sprintf("etcd: %s %q", op, election)
	}
	if cerr := backends.Canceled(ctx); cerr != nil {
		return fmt.Errorf("%s: %w", what, cerr)
	}
	switch {
	case errorsIs(err, rpctypes.ErrCompacted), errors.Is(err, rpctypes.ErrGRPCCompacted):
		return fmt.Errorf("%s: %w: %w", what, backends.ErrCompacted, err)
	case errorsIs(err, rpctypes.ErrLeaseNotFound):
		return fmt.Errorf("%s: %w: %w", what, backends.ErrSessionExpired, err)
	case errorsIs(err, rpctypes.ErrNoLeader), errorsIs(err, rpctypes.ErrTooManyRequests),
		errorsIs(err, rpctypes.ErrNotCapable):
		return fmt.Errorf("%s: %w: %w", what, backends.ErrUnavailable, err)
	case denied(err, fixedToken):
		return fmt.Errorf("%s: %w: %w", what, backends.ErrPermission, err)
	case staleToken(err): // refused before acting; the next call has a new token
		return fmt.Errorf("%s: %w: %w", what, backends.ErrUnavailable, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// permanentAuth are the etcd errors that no retry can cure: the user lacks
// the rights (permission denied), the credentials are wrong (authentication
// failed, user not found), or the client sent none to a server with auth
// on (user name is empty: clientv3 itself re-authenticates when it has a
// user name and password, so only a client without them sees it).
var permanentAuth = []error{rpctypes.ErrPermissionDenied, rpctypes.ErrAuthFailed,
	rpctypes.ErrUserEmpty, rpctypes.ErrUserNotFound, rpctypes.ErrInvalidAuthMgmt,
	rpctypes.ErrRoleNotGranted, rpctypes.ErrPermissionNotGranted}

// denied reports whether err is a permanent refusal for lack of rights or
// credentials. An invalid auth token or an old auth revision (staleToken)
// is not: with a user name and password, clientv3 fetches a new token and
// retries a unary call by itself, and a watch so refused leaves its stream
// for a new one, with a new token (see streams); such an error that still
// reaches the adapter is unavailable. With a fixed token (fixedToken)
// nothing can renew it, and they are permanent.
func denied(err error, fixedToken bool) bool {
	for _, target := range permanentAuth {
		if errorsIs(err, target) {
			return true
		}
	}
	return fixedToken && (errorsIs(err, rpctypes.ErrInvalidAuthToken) || errorsIs(err, rpctypes.ErrAuthOldRevision))
}

// errorsIs compares etcd errors, which cross the wire as gRPC statuses, by
// their etcd error type. A watch the server refuses (a user without read
// rights) ends with the status's text only: clientv3 keeps its cancel
// reason as a plain error, which is compared with the text of target's
// status.
func errorsIs(err, target error) bool {
	if errors.Is(err, target) {
		return true
	}
	if errors.Is(rpctypes.Error(err), rpctypes.Error(target)) {
		return true
	}
	ee, ok := target.(rpctypes.EtcdError)
	return ok && err != nil && err.Error() == status.Error(ee.Code(), ee.Error()).Error()
}
