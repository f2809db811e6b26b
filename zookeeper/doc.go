// Package zookeeper is the leasehold adapter for Apache ZooKeeper, built on
// github.com/go-zookeeper/zk. A Store dials the ensemble itself, from the
// addresses, ACL and credentials the caller gives it, because in ZooKeeper
// a session is a connection's: every Session is a go-zookeeper connection
// of its own.
//
// Application code should use package lease; this package only connects it
// to ZooKeeper. How the adapter uses ZooKeeper (node names, how sessions
// are renewed and why, configuring tickTime and session timeouts, moving
// from versions that nested names) is described in docs/stores.md of the
// repository, and what the ACLs protect in docs/security.md. This doc
// states the contract of the Store's calls.
//
//	store, err := zookeeper.New([]string{"zk1:2181", "zk2:2181", "zk3:2181"}, zookeeper.Options{
//		TickTime: 2 * time.Second, // the servers' tickTime: TTLs from 4s to 40s
//		Auth:     []zookeeper.Auth{{Scheme: "digest", Credentials: []byte("alice:" + password)}},
//	})
//	...
//	defer store.Close()
//	e, err := lease.New(store, lease.Options{TTL: 10 * time.Second})
//
// # Nodes and tokens
//
// An election's leader node is Prefix + "/" + its node name (the name with
// '/', '%' and every byte outside [A-Za-z0-9._-] written as '%XX'; see
// docs/stores.md), created as an EPHEMERAL node of the candidate's session;
// missing parents are created as persistent nodes with the same ACL. The
// create fails if the node exists, which makes it a compare-and-swap. The
// fencing token is the node's czxid, which ZooKeeper assigns in strictly
// increasing order; Record.Owner is its ephemeralOwner, the holder's
// session ID in hex. A create whose reply was lost is retried by package
// lease: the retry finds the node, sees this session's ID as its owner and
// returns it (a session's connection never carries another session, so a
// node owned by this session ID is this session's).
// Prefix + "/~layout" holds the layout's version (backends.Layout).
//
// Record.Revision is a zxid: the highest one the connection had received
// from the server when the read returned (every reply carries the server's
// last zxid), so it is at or after the state read. go-zookeeper does not
// expose reply zxids; the Store reads them off the wire.
//
// The Store is a backends.Queuer: a queue entry is an EPHEMERAL_SEQUENTIAL
// node of its session, and its token is its sequence number plus 1. Ahead
// and WaitGone sync and read on the Store's reader (see Watches); WaitGone
// leaves a getData watch on the entry, which fires when the entry is
// deleted or nudged (Nudge sets its data again).
//
// The Store is a backends.Roster: a candidate record is an EPHEMERAL node
// of its session, Prefix + "/~roster/" + the election's node name + "/" +
// the session ID, whose czxid is its Token. A Join that rewrites a record
// also creates and deletes a child of the roster node in the same multi,
// so that every change to a roster moves its node's pzxid and fires its
// children watch: WaitList leaves that one watch, and a roster whose pzxid
// is above the revision asked has changed since.
//
// The Store is a backends.Proclaimer: Proclaim sets the value of the
// leader node in a multi guarded as Delete's is (see Guarantees), so the
// node keeps its czxid, the Token, and its owner.
//
// The Store is a backends.MarkedDeleter: DeleteMarked's multi deletes the
// leader node, writes the handover marker into the election's epoch node
// (which the next create's multi clears), checks that the target's node
// (its queue entry, or its candidate record) exists, and nudges the entry
// ahead of the target's, if any: the one the caller names (Mark.Ahead),
// or else the one a listing of the queue finds. A Wait on a node that
// exists watches the epoch node too: the marker's write fires that watch
// before the deletion's, and the Wait then reads the marker. A WatchSet's
// WaitGone reads the marker when its entry is nudged, and also when it
// finds its entry nudged before its watch was set (a data version above
// 0), once per set and marker. Get reports a marker only while the
// target's node exists.
//
// # Sessions
//
// NewSession opens a connection with the TTL as session timeout and waits
// for the session. Session.TTL reports the timeout the server granted, and
// NewSession fails if that is less than asked, so a holder's deadline never
// outlasts its session. Limits reports Options.MinTTL and MaxTTL.
//
// On a session's connection the Store turns go-zookeeper's own pings off:
// it shows go-zookeeper a negotiated timeout of about 12 days (rewriting
// the handshake on the wire, while still asking the server for the TTL on
// every reconnect), so that KeepAlive, a sync, is the session's only
// heartbeat. With go-zookeeper's read timeout gone too, a KeepAlive whose
// sync gets no reply within half the session timeout drops the TCP
// connection itself; one that merely ends with its ctx leaves it up, so
// that Close can still send closeSession on it when the holder gives up.
//
// While the connection is down and the session not yet expired, calls
// fail. Once the server reports the session expired, every call fails with
// an error wrapping backends.ErrSessionExpired, and the connection never
// reconnects: go-zookeeper would otherwise open a new session on it
// without telling anyone. Session.Close sends closeSession, and the server
// deletes the session's nodes at once.
//
// # Watches
//
// Wait reads the node with a watch set by the same request (getData, or
// exists when the node is absent), returns if the node differs from the
// known Record and otherwise waits for the watch's notification, about a
// round trip after the change commits. Get and the first read of Wait
// follow a sync, so they see every change the leader committed before they
// began. A read goes out right behind its sync, without waiting for the
// sync's answer: ZooKeeper serves a session's requests in order and holds
// the read until the sync is done, so such a read costs one round trip,
// not two (Get, Wait's first read, Roster.List and WaitList, Ahead,
// WaitGone, GuardedPut's read).
//
// Reads and watches (Get, Wait, Ahead, WaitGone, Dequeue, GuardedPut's
// reads, WatchSets) go on the Store's reader: the connection of one of its
// open sessions, which that session's KeepAlive keeps alive, so an idle
// Store sends no more than its sessions' renewals. Only while it has no
// session whose connection can serve (an observer, or between sessions)
// does the Store dial a connection of its own, which go-zookeeper pings
// every third of its session timeout; it closes it once a session's
// connection can serve again and no call is reading on it. A watch whose
// connection closes or whose session expires is read again, after a sync,
// on the reader of the moment; a read that failed because its session's
// connection went away is made once more there.
//
// The Store is a backends.Watcher: a WatchSet waits for many elections
// with no goroutine each (see Store.Watch).
//
// # Permissions
//
// NewSession checks the credentials (see Options.Auth) with one multi that
// would create and delete a child of Prefix and then fails on purpose,
// which commits nothing but tells whether the ACLs allow both. NOAUTH
// there, or AUTH_FAILED when adding the credentials, fails NewSession with
// an error wrapping backends.ErrPermission that names Prefix and the
// identity ("digest:alice", never the password). NOAUTH, AUTH_FAILED and
// INVALIDACL from any other call are ErrPermission too: permanent.
//
// # Guarantees
//
// Promised: at most one session holds an election's node; tokens (czxids)
// of successive holders strictly increase; a session's node goes when the
// session is closed or expires, and a session expires no sooner than its
// TTL after the last KeepAlive was sent. Every call returns when its ctx
// ends.
//
// Delete and GuardedPut act only on the incarnation whose token they are
// given, though ZooKeeper cannot condition a write on a czxid: each
// election has a persistent epoch node (Prefix + "/~epoch/" + its node name) whose version
// the multi that creates a leader node raises, and their multis check
// that version as read before the leader node. A successor's node created
// between the read and the multi fails the check.
//
// Not promised: a leader node made by an older version of this package
// raised no epoch, so while older versions still campaign, a successor
// they create between the read and the multi of a Delete or GuardedPut
// goes unseen (a window of one round trip). A watch left by a Wait whose
// ctx ended, or by a WatchSet request stopped or replaced, stays
// registered until the node's next change: go-zookeeper cannot remove
// watches.
package zookeeper
