package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/etcd/etcdtest"
	"github.com/leasehold/leasehold/internal/embedetcd"
	"github.com/leasehold/leasehold/internal/keys"
)

// TestLayoutRefusedExitsAtOnce: on a prefix another version of leasehold
// laid out (its layout marker holds another version), run, observe and
// status print the refusal, naming both versions, on one leasehold: line
// and exit 1 at once, as for a store's refusal.
func TestLayoutRefusedExitsAtOnce(t *testing.T) {
	srv, err := embedetcd.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	h := &etcdtest.Harness{Endpoints: []string{srv.Endpoint}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := h.Dial(t).Put(ctx, keys.Layout("/leasehold/"), "999"); err != nil {
		t.Fatal(err)
	}
	store := "etcd://" + strings.TrimPrefix(srv.Endpoint, "http://") + "/leasehold"
	const words = `prefix "/leasehold/" holds layout version "999", and this build reads and writes version 1`
	checkRefusals(t, store, "2s", []refusal{
		{"run", "run", []string{"--", "true"}, words},
		{"observe", "observe", nil, words},
		{"status", "status", nil, words},
	})
}
