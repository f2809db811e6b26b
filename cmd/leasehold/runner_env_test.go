package main

import (
	"slices"
	"testing"
)

// TestChildEnvDropsSecrets: leasehold's own credential variables do not
// reach CMD; everything else does.
func TestChildEnvDropsSecrets(t *testing.T) {
	in := []string{"PATH=/bin", "LEASEHOLD_PASSWORD=s3cret", "LEASEHOLD_ZK_DIGEST=a:b",
		"LEASEHOLD_PASSWORDX=kept", "CONSUL_HTTP_TOKEN=t"}
	got := childEnv(in)
	want := []string{"PATH=/bin", "LEASEHOLD_PASSWORDX=kept", "CONSUL_HTTP_TOKEN=t"}
	if !slices.Equal(got, want) {
		t.Fatalf("childEnv = %q, want %q", got, want)
	}
}
