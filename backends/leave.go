package backends

import "context"

// LeavingDeleter is an optional interface of a Store that is a Roster,
// found by type assertion: the release of a held leader key and the
// session's candidate record together, in one write. It backs package
// lease's resign, which ends the campaign and so deletes the record just
// after the key: as two writes, the second competes with the successor's
// create. etcd, ZooKeeper and Consul all can (a transaction, or a multi,
// that deletes both). A LeavingDeleter that is a MarkedDeleter or a Passer
// does the same in DeleteMarked and Pass when asked (leave).
type LeavingDeleter interface {
	// DeleteLeaving deletes election's leader key if it exists, is bound
	// to s and holds token, as Session.Delete does, and in the same write
	// s's record in election's roster, as Roster.Leave does (a missing
	// record is not an error). It returns an error wrapping ErrNotFound,
	// and changes nothing, if the key is absent or holds another token or
	// session: the caller then leaves the roster with Roster.Leave.
	DeleteLeaving(ctx context.Context, s Session, election string, token uint64) error
}
