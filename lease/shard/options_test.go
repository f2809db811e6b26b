package shard_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/lease/shard"
	"github.com/leasehold/leasehold/leaseholdtest"
)

// TestJoinOptions: Join names the bad option and its range.
func TestJoinOptions(t *testing.T) {
	srv := leaseholdtest.Etcd(t)
	e, err := lease.New(srv.Store, lease.Options{TTL: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	ctx := context.Background()
	if _, err := shard.Join(ctx, nil, "g", shard.Options{Shards: 1}); !errors.Is(err, lease.ErrInvalidOption) {
		t.Errorf("nil elector: %v, want ErrInvalidOption", err)
	}
	for _, c := range []struct {
		group string
		opts  shard.Options
		want  string
	}{
		{"g", shard.Options{}, "Shards 0 must be 1 to 65536"},
		{"g", shard.Options{Shards: 65537}, "Shards 65537"},
		{"g", shard.Options{Shards: 8, Weight: 1001}, "Weight 1001 must be 1 to 1000"},
		{"g", shard.Options{Shards: 8, Weight: -1}, "Weight -1"},
		{"g", shard.Options{Shards: 8, Settle: -time.Second}, "Settle -1s must be at least 0"},
		{"bad//name", shard.Options{Shards: 8}, "group name"},
	} {
		_, err := shard.Join(ctx, e, c.group, c.opts)
		if !errors.Is(err, lease.ErrInvalidOption) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Join(%q, %+v) = %v, want ErrInvalidOption saying %q", c.group, c.opts, err, c.want)
		}
	}
	full := map[string]string{}
	for _, k := range strings.Fields("a b c d e f g") {
		full[k] = "x"
	}
	e2, err := lease.New(srv.Store, lease.Options{TTL: 2 * time.Second, Labels: full})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close(context.Background())
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := shard.Join(tctx, e2, "g", shard.Options{Shards: 8}); !errors.Is(err, lease.ErrInvalidOption) || !strings.Contains(err.Error(), "WithLabels") {
		t.Errorf("Join with 7 elector labels = %v, want ErrInvalidOption from the members record's labels", err)
	}
}

// TestReadStatusShards: ReadStatus refuses a shard count out of range
// before it reads anything: with a context already ended, the error is
// still ErrInvalidOption, not the context's.
func TestReadStatusShards(t *testing.T) {
	srv := leaseholdtest.Etcd(t)
	e, err := lease.New(srv.Store, lease.Options{TTL: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for _, n := range []int{-1, shard.MaxShards + 1} {
		_, err := shard.ReadStatus(ended, e, "g", n)
		if !errors.Is(err, lease.ErrInvalidOption) || !strings.Contains(err.Error(), "want 1 to 65536") {
			t.Errorf("ReadStatus(%d shards) = %v, want ErrInvalidOption naming 1 to 65536", n, err)
		}
	}
}
