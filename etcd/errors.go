package etcd

import (
	"context"
	"errors"
	"fmt"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"

	"github.com/leasehold/leasehold/backends"
)

// classify wraps an etcd client error with the backends class it belongs
// to. Only errors the server returns before acting count as unavailable; a
// transport failure may come after the request was applied, so it is left
// unclassified (outcome unknown).
func classify(op, election string, ctx context.Context, err error) error {
	what := "etcd: " + op
	if election != "" {
		what = fmt.Sprintf("etcd: %s %q", op, election)
	}
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %w: %w", what, backends.ErrCanceled, ctx.Err())
	case errorsIs(err, rpctypes.ErrCompacted), errors.Is(err, rpctypes.ErrGRPCCompacted):
		return fmt.Errorf("%s: %w: %w", what, backends.ErrCompacted, err)
	case errorsIs(err, rpctypes.ErrLeaseNotFound):
		return fmt.Errorf("%s: %w: %w", what, backends.ErrSessionExpired, err)
	case errorsIs(err, rpctypes.ErrNoLeader), errorsIs(err, rpctypes.ErrTooManyRequests),
		errorsIs(err, rpctypes.ErrNotCapable):
		return fmt.Errorf("%s: %w: %w", what, backends.ErrUnavailable, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// errorsIs compares etcd errors, which cross the wire as gRPC statuses, by
// their etcd error type.
func errorsIs(err, target error) bool {
	if errors.Is(err, target) {
		return true
	}
	return errors.Is(rpctypes.Error(err), rpctypes.Error(target))
}
