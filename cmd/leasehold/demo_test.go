package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestDemo runs the README's demo and checks its story: a crash hand-over
// with a higher token, the old leader stopped first, the stale write
// rejected, and a resign hand-over.
func TestDemo(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out strings.Builder
	if err := runDemo(ctx, &out, nil); err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	s := out.String()
	for _, want := range []string{"crash hand-over took", "had stopped acting", "guarded resource rejects it",
		"resign hand-over took", "done: the guarded resource accepted"} {
		if !strings.Contains(s, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if strings.Contains(s, "BUG") || strings.Contains(s, "write rejected") {
		t.Errorf("demo reported a fault")
	}
	t.Log("\n" + s)
}
