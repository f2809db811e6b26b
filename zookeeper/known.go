package zookeeper

import (
	"sync"

	"github.com/go-zookeeper/zk"
)

// known is what a session learnt of a leader node from its own create:
// the node's czxid (the token), its version, and the version of the
// election's epoch node right after the create. While the epoch node is
// still at that version no leader node was created since (every create
// raises it, see epochPath), so a multi that checks both versions acts
// on that incarnation without reading it first: End and the first
// Proclaim cost one round trip. A guard that fails sends them to the read
// (readHeld), which then decides.
//
// A Proclaim forgets the node, so the End after it reads first, as
// before: the handover marker of a target of an earlier version is a
// Proclaim (mark is the others'), and the waiters that its
// write wakes read the key to find it; an End right behind it would
// leave more of them reading no key, and racing the target, than the
// read's round trip does (docs/policies.md, planned handover).
type known struct {
	token         uint64
	leader, epoch int32
}

// knownNodes holds a session's known leader nodes by election. It is
// safe for concurrent use.
type knownNodes struct {
	mu sync.Mutex
	m  map[string]known
}

// remember records the node with stat st, created by this session in a
// multi that left the epoch node at stat est.
func (k *knownNodes) remember(election string, st, est *zk.Stat) {
	if st == nil || est == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.m == nil {
		k.m = map[string]known{}
	}
	k.m[election] = known{token: uint64(st.Czxid), leader: st.Version, epoch: est.Version}
}

// forget drops election's node, which is gone or not the session's.
func (k *knownNodes) forget(election string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.m, election)
}

// guards returns the checks that hold only while election's node is
// still the incarnation at token that the session knows, at the version
// it knows; false if it knows none at token.
func (k *knownNodes) guards(election, path, epath string, token uint64) ([]any, bool) {
	k.mu.Lock()
	n, ok := k.m[election]
	k.mu.Unlock()
	if !ok || n.token != token {
		return nil, false
	}
	return []any{&zk.CheckVersionRequest{Path: epath, Version: n.epoch},
		&zk.CheckVersionRequest{Path: path, Version: n.leader}}, true
}
