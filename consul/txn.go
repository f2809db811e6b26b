package consul

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/consul/api"
)

// txn runs ops in one transaction. A rollback is a *rolledBack error;
// any other failure is classified.
func (s *Store) txn(ctx context.Context, op, election string, ops api.TxnOps) (*api.TxnResponse, error) {
	ok, resp, _, err := s.c.Txn().Txn(ops, queryOpts(ctx))
	if err != nil {
		return nil, classify(op, election, ctx, err)
	}
	if !ok {
		return resp, &rolledBack{resp.Errors}
	}
	return resp, nil
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

func (rb *rolledBack) Error() string {
	var whats []string
	for _, e := range rb.errs {
		if e != nil {
			whats = append(whats, fmt.Sprintf("op %d: %s", e.OpIndex, e.What))
		}
	}
	return "transaction rolled back: " + strings.Join(whats, "; ")
}
