package zookeeper

import (
	"errors"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/zookeeper/internal/names"
)

// epochSegment is the child of Prefix under which each election's epoch
// node lives.
const epochSegment = "~epoch"

// testHookHeld runs between readHeld and the multi it guards; tests set
// it to change the leader node in that window.
var testHookHeld = func() {}

// testHookRead runs at each readHeld; tests set it to count the reads.
var testHookRead = func() {}

// epochPath returns election's epoch node: Prefix + "/~epoch/" + the
// election's node name (see leaderPath). It is a persistent node, made with the
// election's first leader node and never deleted, whose data version the
// multi that creates a leader node raises: the version counts the
// election's incarnations. ZooKeeper's check op compares versions, not
// czxids, so a check of the leader node alone cannot tell its incarnation
// from a successor's (both are at version 1); a check of the epoch node's
// version can, and End and GuardedPut send one in the multi that acts.
func (s *store) epochPath(election string) string {
	return s.opts.Prefix + "/" + epochSegment + "/" + names.Node(election)
}

// bumpEpoch is the op, part of every leader node's create multi, that
// raises the epoch node's version.
func bumpEpoch(epath string) *zk.SetDataRequest {
	return &zk.SetDataRequest{Path: epath, Version: -1}
}

// makeEpoch creates the epoch node at epath and its missing parents, if
// missing.
func makeEpoch(conn *zk.Conn, epath string, acl []zk.ACL) error {
	if err := makeParents(conn, epath, acl); err != nil {
		return err
	}
	if _, err := conn.Create(epath, nil, 0, acl); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return err
	}
	return nil
}

// held is a leader node read as holding a token, with the epoch node read
// just before it.
type held struct {
	leader *zk.Stat
	epoch  *zk.Stat // nil: no epoch node (a node made by an older version)
}

// guards returns the multi ops that hold only while the node read is
// still the leader node: a check of the epoch node's version (no create
// since), and one of the leader node's (not deleted, not changed).
func (h held) guards(path, epath string) []any {
	ops := []any{&zk.CheckVersionRequest{Path: path, Version: h.leader.Version}}
	if h.epoch != nil {
		ops = append([]any{&zk.CheckVersionRequest{Path: epath, Version: h.epoch.Version}}, ops...)
	}
	return ops
}

// readHeld reads the epoch node and then the leader node, and returns
// them if the leader node's czxid is token; errNotHeld if it is absent or
// another incarnation. The epoch node is read first: a create that
// follows the leader node's read also follows the epoch's, so the check
// of its version catches it. If the epoch read preceded token's own
// create (its mzxid is below token, and that create raised it), the check
// would refuse token's own incarnation, so both are read once more; the
// second epoch read follows the leader node's first read, hence token's
// create, so if its mzxid is still below token, that create raised no
// epoch (an older version made the node) and the check still holds. With
// no epoch node at all the epoch is nil and only the leader node's
// version guards.
func readHeld(conn *zk.Conn, path, epath string, token uint64) (held, error) {
	testHookRead()
	for round := 0; ; round++ {
		eok, est, err := conn.Exists(epath)
		if err != nil {
			return held{}, err
		}
		ok, st, err := conn.Exists(path)
		if err != nil {
			return held{}, err
		}
		if !ok || uint64(st.Czxid) != token {
			return held{}, errNotHeld
		}
		if !eok {
			return held{leader: st}, nil
		}
		if uint64(est.Mzxid) >= token || round > 0 {
			return held{leader: st, epoch: est}, nil
		}
	}
}

// multiErr returns the error of the first op of a multi that failed, or
// the multi's own error if none did.
func multiErr(res []zk.MultiResponse, err error) error {
	if i := failedOp(res); i >= 0 {
		return res[i].Error
	}
	return err
}

// guardFailed reports whether the multi's results show a guard op of
// h.guards failed: the leader node read is no longer the leader node.
func guardFailed(res []zk.MultiResponse, guards int) bool {
	for i := 0; i < guards && i < len(res); i++ {
		if errors.Is(res[i].Error, zk.ErrNoNode) || errors.Is(res[i].Error, zk.ErrBadVersion) {
			return true
		}
	}
	return false
}
