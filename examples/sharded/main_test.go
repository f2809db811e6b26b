package main

import (
	"context"
	"testing"
)

// TestSharded runs the example on an in-process etcd: three workers
// balance 60 shards, a fourth joins and takes its share, the first leaves
// and hands its shards over; run fails if any step does not balance.
func TestSharded(t *testing.T) {
	if err := run(context.Background(), []string{"--shards", "60", "--workers", "3"}); err != nil {
		t.Fatal(err)
	}
}
