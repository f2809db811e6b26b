// Package zookeeper is the leasehold adapter for Apache ZooKeeper, built on
// the public API of github.com/go-zookeeper/zk. A Store dials the ensemble
// itself, from the addresses, ACL and credentials the caller gives it
// (and the caller's zk.Connect options, Options.ConnOptions), where etcd.New
// and consul.New take the caller's client. It cannot take a *zk.Conn: in
// ZooKeeper a session is a connection's, and a Store needs one session per
// backends.Session, each with its TTL as session timeout, which a
// connection fixes when it is dialed; and each of those connections must
// carry go-zookeeper's hooks from zk.Connect on, which cannot be added to
// a connection already made: an event callback that routes watches and
// sees the session expire, and a dialer that then refuses to redial and
// reads the granted timeout (see Sessions). Without them go-zookeeper
// opens a new session on the connection after an expiry, and a create
// racing that switch would make a leader node of a session no elector
// holds, which would stay while the connection lives. A *zk.Conn of the
// caller's would hold one session, with the caller's timeout and none of
// those hooks.
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
// Record.Revision is a zxid from the public Stat. A present node's is its
// mzxid: the write that made the state read, which held from then until
// the read at least. ZooKeeper keeps no Stat of an absent node and tells
// no deletion's zxid, so an absent node's Revision is a lower bound: the
// highest zxid of any Stat the connection had received before the read
// (at least 1), and, when the absence follows a present state the call
// knew (Wait's known, the node a deletion notification reports gone), one
// more than that state's Revision if higher. Wait, WaitGone and a
// WatchSet's requests compare states (Token and Value), never Revisions:
// a change after known.Revision and before the call leaves the node in a
// state other than known's, which the call's first read (after a sync)
// sees and answers at once; a change back to known's state may be
// skipped, as the contract allows. So the contract holds whatever an
// absent node's Revision is, and this one keeps the Revisions of the
// states the Store returns for a node increasing. A roster listing's
// revision is the roster node's pzxid (the zxid of the last create or
// delete among its children, which every change to a roster makes: see
// below), from which the roster was as listed; WaitList compares the
// pzxid it reads with it. A queue listing's (Ahead) is the queue node's
// pzxid, and an Enqueue's the connection's highest zxid seen.
//
// The driver keeps the queue: a queue entry is an EPHEMERAL_SEQUENTIAL
// node of its session, and its token is its sequence number plus 1. Ahead
// and WaitGone sync and read on the Store's reader (see Watches); WaitGone
// leaves a getData watch on the entry, which fires when the entry is
// deleted or nudged (Nudge sets its data again).
//
// The driver keeps the roster: a candidate record is an EPHEMERAL node
// of its session, Prefix + "/~roster/" + the election's node name + "/" +
// the session ID, whose czxid is its Token. A Join that rewrites a record
// also creates and deletes a child of the roster node in the same multi,
// so that every change to a roster moves its node's pzxid and fires its
// children watch: WaitList leaves that one watch, and a roster whose pzxid
// is above the revision asked has changed since.
//
// A session's Proclaim sets the value of the
// leader node in a multi guarded as End's is (see Guarantees), so the
// node keeps its czxid, the Token, and its owner.
//
// The Store declares backends.Capabilities.Markers: an End with a target is a
// multi that deletes the
// leader node, writes the handover marker into the election's epoch node
// (which the next create's multi clears), checks that the target's node
// (its queue entry, or its candidate record) exists, and nudges the entry
// ahead of the target's, if any: the one the caller names (Target.Ahead),
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
// outlasts its session. Capabilities reports Options.MinTTL and MaxTTL.
//
// On a session's connection the Store turns go-zookeeper's own pings
// off, so that KeepAlive, a sync, is the session's only heartbeat:
// go-zookeeper pings every third of the session timeout it learnt at the
// handshake, and those pings would keep a session alive after its elector
// stopped renewing it, where the backends contract has a silent session
// expire a TTL after its last renewal (the conformance suite's TTLExpiry
// fails with them on). A ping would not do as the renewal either: a
// follower cut off from its leader answers pings alone (see KeepAlive).
// With go-zookeeper's read timeout gone too, a KeepAlive whose sync gets
// no reply within half the session timeout drops the TCP connection
// itself; one that merely ends with its ctx leaves it up, so that Close
// can still send closeSession on it when the holder gives up.
//
// go-zookeeper's public API can neither turn its pings off nor tell the
// timeout the server granted (it keeps the connect response's to itself;
// its four-letter-word helpers need commands that servers do not allow by
// default), and NewSession needs that timeout: a session granted less
// than its TTL (a maxSessionTimeout below it, which Options.MaxTTL may
// not know) would let a holder lead after the server expired it. So the
// connection the Store's dialer (zk.WithDialer) hands go-zookeeper
// touches the first 20 bytes each way, the connect request and response
// of ZooKeeper's protocol, and nothing after (handshake.go): it records
// the timeout the server granted, shows go-zookeeper a timeout of about
// 12 days instead, and asks the server for the TTL on every connect. This
// relies on go-zookeeper deriving its ping interval and read timeout from
// the connect response's timeout and asking, on a reconnect, for the one
// it saw; the tests that fail if go-zookeeper changes under it are
// TestConformance/TTLExpiry (a silent session expires),
// TestSilentServerReconnect (a reconnect asks for the TTL again) and
// TestNegotiatedTimeout (the granted timeout is read). The alternatives
// weighed: a fork of go-zookeeper with a ping option and a timeout
// accessor (a module to carry, and to keep up with upstream, for two
// small changes), or another Go client (those in wide use are
// go-zookeeper and forks of it). The tap reads no reply headers and counts no
// requests: revisions come from Stat, and reads wait for their sync.
//
// While the connection is down and the session not yet expired, calls
// fail. Once the server reports the session expired (go-zookeeper's
// StateExpired event, which the event callback sees before go-zookeeper
// dials again), every call fails with an error wrapping
// backends.ErrSessionExpired, and the connection never reconnects: the
// dialer refuses, as go-zookeeper would otherwise open a new session on it
// without telling anyone; a session ID other than the session's
// (zk.Conn.SessionID) counts as expired too. Session.Close sends
// closeSession, and the server deletes the session's nodes at once.
//
// # Watches
//
// Wait reads the node with a watch set by the same request (getData, or
// exists when the node is absent), returns if the node differs from the
// known Record and otherwise waits for the watch's notification, about a
// round trip after the change commits. Get and the first read of Wait
// follow a sync, so they see every change the leader committed before they
// began; so do Roster.List and WaitList, Ahead, WaitGone's first read,
// GuardedPut's read, and a WatchSet's reads after its connection changed.
// A read that follows a watch's notification needs none: the server that
// sent it has the change.
//
// A sync, then a read, costs two round trips. ZooKeeper serves a
// session's requests in order and would hold a read sent right behind a
// sync until the sync is done, but go-zookeeper's calls block until
// answered and its API promises no order between calls made from
// different goroutines, so nothing public tells when the read may go
// out; the Store sends it once the sync has answered. Nor can the sync
// be left out of those reads: a server that lags the leader would answer
// with a state older than one the caller already knows (no node, where
// the caller saw a holder's create), which Wait would return as a change,
// and Get as the current state. Hand-offs do not pay for it: a waiter
// learns of the deletion from its watch's notification and creates at
// once.
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
// The driver's WatchSet waits for many elections
// with no goroutine each (see the driver's Watch).
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
// End and GuardedPut act only on the incarnation whose token they are
// given, though ZooKeeper cannot condition a write on a czxid: each
// election has a persistent epoch node (Prefix + "/~epoch/" + its node name) whose version
// the multi that creates a leader node raises, and their multis check
// that version as read before the leader node. A successor's node created
// between the read and the multi fails the check.
//
// Not promised: a leader node made by an older version of this package
// raised no epoch, so while older versions still campaign, a successor
// they create between the read and the multi of an End or GuardedPut
// goes unseen (a window of one round trip). A watch left by a Wait whose
// ctx ended, or by a WatchSet request stopped or replaced, stays
// registered until the node's next change: go-zookeeper cannot remove
// watches.
package zookeeper
