package consul

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
)

// classify wraps an api client error with the backends class it belongs
// to. Only a request that surely did not reach Consul's state (the
// connection was refused, or Consul answered 429 before handling it)
// counts as unavailable; any other failure, a 500 included, may come after the
// request was applied and is left unclassified (outcome unknown).
func classify(op, election string, ctx context.Context, err error) error {
	what := "consul: " + op
	if election != "" {
		what = fmt.Sprintf("consul: %s %q", op, election)
	}
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %w: %w", what, backends.ErrCanceled, ctx.Err())
	case notSent(err):
		return fmt.Errorf("%s: %w: %w", what, backends.ErrUnavailable, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// notSent reports whether err says the request was never processed.
func notSent(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var st api.StatusError
	return errors.As(err, &st) && st.Code == http.StatusTooManyRequests
}
