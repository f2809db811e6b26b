package consul

import (
	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
)

// record converts a leader key read at index rev into a Record. Only a key
// locked by a session is held; an absent or unlocked key has Token 0.
func record(election string, p *api.KVPair, rev uint64) backends.Record {
	rec := backends.Record{Election: election, Revision: rev}
	if p != nil && p.Session != "" {
		rec.Value, rec.Token, rec.Owner = p.Value, p.ModifyIndex, p.Session
	}
	return rec
}

// nextIndex returns the WaitIndex for the blocking query after one that
// was sent with prev and answered with last, by Consul's rules for
// blocking queries: an index that went backwards restarts from 0 (a
// non-blocking read), and an index of 0, which Consul should never return,
// is treated as 1 so that the next query blocks.
func nextIndex(prev, last uint64) uint64 {
	switch {
	case last < prev:
		return 0
	case last == 0:
		return 1
	}
	return last
}
