package shard_test

import (
	"testing"
	"time"

	"github.com/leasehold/leasehold/lease/shard/shardtest"
	"github.com/leasehold/leasehold/leaseholdtest"
)

// TestScenarios runs the shard group's scenarios on an in-process etcd
// (TTL 2 s; a silent session's key goes after TTL + up to 0.5 s).
func TestScenarios(t *testing.T) {
	shardtest.Run(t, shardtest.Store{Server: leaseholdtest.Etcd(t), TTL: 2 * time.Second, Takeover: 5 * time.Second, HandOff: time.Second})
}
