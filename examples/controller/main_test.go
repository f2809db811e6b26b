package main

import (
	"context"
	"testing"
)

// TestController runs the example on an in-process etcd.
func TestController(t *testing.T) {
	if err := run(context.Background(), []string{"--for", "3s"}); err != nil {
		t.Fatal(err)
	}
}
