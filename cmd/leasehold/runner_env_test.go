package main

import (
	"slices"
	"testing"
)

// TestChildEnvDropsSecrets: the variables leasehold may take a store or a
// credential from do not reach CMD; everything else does.
func TestChildEnvDropsSecrets(t *testing.T) {
	in := []string{"PATH=/bin", "LEASEHOLD_PASSWORD=s3cret", "LEASEHOLD_ZK_DIGEST=a:b",
		"LEASEHOLD_PASSWORDX=kept", "CONSUL_HTTP_TOKEN=t", "LEASEHOLD_STORE=etcd://u:p@h:1/x",
		"CONSUL_HTTP_AUTH=u:p", "CONSUL_HTTP_TOKEN_FILE=/f", "CONSUL_HTTP_ADDR=h:1"}
	got := childEnv(in)
	want := []string{"PATH=/bin", "LEASEHOLD_PASSWORDX=kept", "CONSUL_HTTP_ADDR=h:1"}
	if !slices.Equal(got, want) {
		t.Fatalf("childEnv = %q, want %q", got, want)
	}
}
