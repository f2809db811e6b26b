package lease_test

import (
	"fmt"
	"testing"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/lease"
)

// TestReasonPermanent: a leadership lost to a permanent store error gives
// the reason of its class.
func TestReasonPermanent(t *testing.T) {
	for err, want := range map[error]string{
		fmt.Errorf("renew: %w: denied", backends.ErrPermission): lease.ReasonPermission,
		fmt.Errorf("renew: %w: x509: expired", backends.ErrTLS): lease.ReasonTLS,
	} {
		if got := lease.Reason(err); got != want {
			t.Errorf("Reason(%v) = %q, want %q", err, got, want)
		}
	}
}
