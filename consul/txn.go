package consul

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
)

// txn runs ops in one transaction. A rollback is a *rolledBack error,
// unless Consul's ACLs refused an operation: that is an error wrapping
// backends.ErrPermission (Consul answers it with a 409 too, and a rollback
// read as "the key changed" would be retried forever). Any other failure
// is classified. It goes through the raw API because api.Txn drops the
// status code of any other answer (a 403, a 429) and keeps only its body.
func (s *store) txn(ctx context.Context, op, election string, ops api.TxnOps) (*api.TxnResponse, error) {
	var resp api.TxnResponse
	_, err := s.c.Raw().Write("/v1/txn", ops, &resp, writeOpts(ctx))
	var st api.StatusError
	switch {
	case err == nil:
		return &resp, nil
	case !errors.As(err, &st) || st.Code != http.StatusConflict:
		return nil, s.classify(op, election, ctx, err)
	case json.Unmarshal([]byte(st.Body), &resp) != nil:
		return nil, fmt.Errorf("%s: a rolled back transaction's answer is not JSON: %w", opName(op, election), err)
	}
	rb := &rolledBack{resp.Errors}
	if rb.denied() {
		return &resp, fmt.Errorf("%s: %w: %s", opName(op, election), backends.ErrPermission, rb)
	}
	return &resp, rb
}

// lastKV returns the key read by the last operation of a transaction.
func lastKV(results api.TxnResults) *api.KVPair {
	if len(results) == 0 || results[len(results)-1] == nil {
		return nil
	}
	return results[len(results)-1].KV
}

// rolledBack is the error of a transaction Consul rolled back (HTTP 409):
// it carries Consul's reasons, each naming the operation that failed.
type rolledBack struct {
	errs api.TxnErrors
}

// failedAt reports whether the operation at index i was one that failed.
func (rb *rolledBack) failedAt(i int) bool {
	for _, e := range rb.errs {
		if e != nil && e.OpIndex == i {
			return true
		}
	}
	return false
}

// denied reports whether Consul's ACLs refused one of the operations.
func (rb *rolledBack) denied() bool {
	for _, e := range rb.errs {
		for _, words := range aclRefusals {
			if e != nil && strings.Contains(e.What, words) {
				return true
			}
		}
	}
	return false
}

func (rb *rolledBack) Error() string {
	var whats []string
	for _, e := range rb.errs {
		if e != nil {
			whats = append(whats, fmt.Sprintf("op %d: %s", e.OpIndex, e.What))
		}
	}
	return "transaction rolled back: " + strings.Join(whats, "; ")
}
