package main

import (
	"context"
	"testing"
)

// TestSharded runs the example on an in-process etcd.
func TestSharded(t *testing.T) {
	if err := run(context.Background(), []string{"--shards", "50", "--workers", "3"}); err != nil {
		t.Fatal(err)
	}
}
