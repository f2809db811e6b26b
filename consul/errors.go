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
// request was applied and is left unclassified (outcome unknown). A 403 is
// Consul's answer to a request its ACLs refuse (an unknown token: "ACL not
// found"; a token without the rights: "Permission denied"), before acting:
// it is permanent. So is a TLS handshake that failed on a certificate
// (backends.CertificateFailure; the api client's *url.Error wraps it):
// ErrTLS.
func classify(op, election string, ctx context.Context, err error) error {
	what := opName(op, election)
	if backends.CertificateFailure(err) {
		return fmt.Errorf("%s: %w: %w", what, backends.ErrTLS, err)
	}
	if cerr := backends.CanceledAfter(ctx, err); cerr != nil {
		return fmt.Errorf("%s: %w", what, cerr)
	}
	switch {
	case notSent(err):
		return fmt.Errorf("%s: %w: %w", what, backends.ErrUnavailable, err)
	case forbidden(err):
		return fmt.Errorf("%s: %w: %w", what, backends.ErrPermission, err)
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

// forbidden reports whether err is Consul's 403: its ACLs refused the
// request.
func forbidden(err error) bool {
	var st api.StatusError
	return errors.As(err, &st) && st.Code == http.StatusForbidden
}

// aclRefusals are the words with which Consul reports an ACL refusal in a
// transaction's operation errors, which carry no code: Consul's own
// acl.IsErrPermissionDenied and acl.IsErrNotFound match on them too.
var aclRefusals = []string{"Permission denied", "ACL not found"}

// opName names an operation for an error: "consul: op" or, for an
// election's, `consul: op "election"`.
func opName(op, election string) string {
	if election == "" {
		return "consul: " + op
	}
	return fmt.Sprintf("consul: %s %q", op, election)
}
