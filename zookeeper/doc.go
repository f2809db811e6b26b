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
// racing that switch would make a lead node of a session no elector
// holds, which would stay while the connection lives. A *zk.Conn of the
// caller's would hold one session, with the caller's timeout and none of
// those hooks.
//
// Application code should use package lease; this package only connects it
// to ZooKeeper. Configuring tickTime and session timeouts is described
// in docs/stores.md of the repository, and what the ACLs protect in
// docs/security.md. This doc states the contract of the Store's calls.
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
// Each election has a persistent pointer node, Prefix + "/" + its node
// name (the name with '/', '%' and every byte outside [A-Za-z0-9._-]
// written as '%XX', so that elections never nest), made by the election's first
// Create and never deleted. Its data names the holder: its session, the
// path of its lead node, and its value (Record.Value); empty data means
// no holder. The lead node is an EPHEMERAL node of the holder's session:
// its queue entry (see below) if it has one in the election, else its
// lead entry ("~" + session ID + "-L" in the election's queue node, which
// Ahead does not list), or, after a pass to a candidate waiting on the
// key, its roster record. A pointer whose lead node is gone (its session
// ended) is an absent key. The pointer's child "~free" exists exactly
// while the pointer is empty.
//
// The fencing token is the pointer's mzxid at the write that pointed it
// at the lead node; a Proclaim, which rewrites the pointer, carries the
// token over in the pointer's data. Every pointer write is a new zxid, so
// tokens of successive terms strictly increase. Record.Owner is the
// holder's session ID in hex; Record.Revision is the pointer's mzxid (for
// a lead node gone, a lower bound: see Record.Revision in backends).
// Prefix + "/~layout" holds the layout's version (backends.Layout): 2,
// created on the first session's connection. Layout 2 keeps a persistent
// pointer node where layout 1 kept an ephemeral leader node, which a
// layout-1 elector would delete: a prefix laid out by either is refused
// by the other (backends.ErrLayout). Queue and guarded-write data
// ("~data/") nodes are named as pointer nodes are.
//
// Every write of a term is one multi guarded by the pointer's version,
// which any other write of the pointer changes, so a write can never
// touch a successor's term:
//   - Create on a free election deletes "~free" and sets the pointer at
//     any version, with the create of its lead entry (or the check of its
//     queue entry): one round trip, no read. "~free" exists only while
//     the pointer is empty, so the delete is the guard. A Create by a
//     waiter that saw the holder's lead node go takes the pointer at the
//     version it read, in a multi that also creates and deletes that node
//     (which fails while it exists). A Create by a candidate whose Store
//     saw another session's lead node alive at the pointer's version,
//     and saw no deletion of it since, sends no multi first: it would
//     fail, and a failed multi is a write of the ensemble, where a read
//     is not. Nor does one whose Store last saw the pointer emptied by
//     its own release: a waiter on the key took it at once. Otherwise
//     Create reads the pointer, after a sync if it sent no multi (the
//     server that refused one had every change committed before it; one
//     whose connection made the release has it), returns it if it names
//     this session's live node (a retried Create), fails with
//     ErrKeyExists if another session's, and else takes it at the
//     version read.
//   - End with a target (a pass: Capabilities.Passes) sets the data of
//     the target's queue entry (Target.Entry; the write fires the watch
//     the target waits on, and fails if the entry went), sets the pointer
//     at the target's node with Target.Value, checks the target's roster
//     record, and deletes the holder's lead node (and its record with
//     Leave; if the record is missing, the multi fails on it and goes
//     again without it). The server notifies a multi's watches in the
//     order of its ops, so the target hears of the pass before the
//     holder's own watches on the pointer and its lead node do. A
//     plain End empties the pointer, creates "~free" and deletes the lead
//     node. The version is the one the Store last saw, so neither reads
//     first. A failed version check, or a target's entry gone (its write
//     comes before the check), makes it read the pointer, after a sync: a
//     pointer that no longer names its node at the token fails it with
//     ErrNotFound; else the multi goes again at the version read, or for
//     the entry gone fails with ErrNoCandidate.
//   - Proclaim sets the pointer's value at its version; GuardedPut checks
//     the pointer's version, as read after a sync, and that the lead node
//     exists, with its write.
//
// A graceful hand-off thus costs one write, one notification to the
// target, and one read: the target, waiting in line, learns of the pass
// from its own entry's data watch and reads the pointer at once, from
// the notification's callback, with no sync (the server that sent the
// notification has the pass, and only the holder can move the pointer
// while its lead node exists); a target at the head of the line, waiting
// on the key, learns of it from the pointer's data watch, whose read is
// the same. Every answer of a wait is
// a pointer state the store committed at its Revision
// (Capabilities.CommittedWaits), so the target leads on it without a Get. When
// a holder's session ends, its lead node goes, the exists watch that the
// key's waiters leave on it fires, and the next Create takes the pointer
// at the version it read: one notification, one read, one write. A pass
// writes "~pass" into the target's entry, so the waiter behind the
// target, which watches that entry, is not woken. A target just behind
// the holder's entry, which the pass deletes, is told twice, by its own
// entry's data watch and by the deletion of the entry it waits on, in
// that order (the multi writes the entry first, and deletes the holder's
// next). The first notification has the request read, and drops the
// watch of the entry ahead from its routes, so that the second, which may
// come apart from it, calls for no read of its own; a read that finds
// that entry gone reads the pointer too, so whichever read the WatchSet
// answers first carries the pass, and the target never takes the
// deletion for a place in line to look up again (Ahead).
// A holder led by its roster record (a pass with Target.Entry 0) that
// leaves the roster moves the pointer to its lead entry in the same
// multi, carrying the token over.
//
// A queue entry is an EPHEMERAL_SEQUENTIAL node of its session (the
// driver keeps the queue), and its token is its sequence number plus
// 1. The queue node is persistent and never deleted, so its sequence
// counter never starts again. Enqueue lists the queue node, for an
// entry of the session's from a call whose reply was lost, at the same
// time as it creates the entry (before, after a failed Enqueue). Ahead
// syncs and reads on the Store's reader (see Watches), with no sync when
// that is the connection that made the entry at the token it is given; a
// WatchSet's WatchEntry request leaves a getData watch on the entry,
// which fires when the entry is deleted or its data changes.
// Dequeue leaves an entry that the pointer names (a candidate that took
// the key by its entry leads by it until its End), and otherwise deletes
// it in a multi that checks the pointer's version as read after a sync.
//
// The driver keeps the roster: a candidate record is an EPHEMERAL node
// of its session, Prefix + "/~roster/" + the election's node name + "/" +
// the session ID, whose czxid is its Token. A Join that rewrites a record
// also creates and deletes a child of the roster node in the same multi,
// so that every change to a roster moves its node's pzxid and fires its
// children watch: a WatchSet's WatchRoster request leaves that one
// watch, and a roster whose pzxid is above the revision asked has
// changed since. A roster listing's revision is that pzxid; a queue
// listing's (Ahead) is the queue node's pzxid, and an Enqueue's the
// connection's highest zxid seen. A WatchSet's WatchKey and WatchEntry
// requests compare states (Token and Value), never Revisions.
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
// A WatchSet's WatchKey request reads the pointer with a watch set by the
// same request (getData, or exists when the node is absent), is answered
// if the key differs from the known Record and otherwise watches the lead
// node too and waits for a notification, about a round trip after the
// change commits. Get and a request's first read follow a sync, so they
// see every change the leader committed before they began; so do
// Roster.List, Ahead, GuardedPut's read, and a WatchSet's reads after its
// connection changed; but a WatchSet's read of WatchEntry requests none
// of which was notified makes no sync on the connection of the session
// whose entry is just behind each one's: that server has the entries made
// before that one, or their deletions; nor does one of WatchKey requests
// that each know a holder at a pointer write a session's connection has
// seen (a zxid at or below the highest of a Stat it received: a candidate
// that found the key held watches on its own connection with no sync);
// and a WatchRoster request's read never syncs: a lagging server shows a
// pzxid at or below the revision asked, so the request watches, and is
// answered when that server applies the roster's next change. A
// WatchEntry request's first read reads the entry, the Store's entry
// behind it and the pointer at once: a waiter that just joined the line
// watches one round trip after its Ahead.
// A read that follows a watch's notification needs none if it goes on
// the connection the notification came on: the server that sent it has
// the change. On another connection (the reader changed meanwhile) it
// syncs first, as that connection's server may lag.
//
// A sync, then a read, costs two round trips. ZooKeeper serves a
// session's requests in order and would hold a read sent right behind a
// sync until the sync is done, but go-zookeeper's calls block until
// answered and its API promises no order between calls made from
// different goroutines, so nothing public tells when the read may go
// out; the Store sends it once the sync has answered. Nor can the sync
// be left out of those reads: a server that lags the leader would answer
// with a state older than one the caller already knows (no node, where
// the caller saw a holder's create), which a WatchKey request would be
// answered with as a change, and Get return as the current state.
// Hand-offs do not pay for it: a waiter learns of the deletion from its
// watch's notification and creates at once.
//
// Reads and watches (Get, Ahead, Dequeue, GuardedPut's reads,
// WatchSets) go on the Store's reader: the connection of one of its
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
// with no goroutine each (see the driver's Watch): 10,000 waiting
// elections on one set cost 340–500 B of Go heap each and one goroutine
// in all, where a blocking wait per election, with its goroutine, cost
// about 9,500 B (zookeeper/watchcost_test.go; 2026-11-23, bdd12a9).
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
// ZooKeeper lets whoever may delete a node's children delete any of
// them, so the prefix node's ACL is what protects the pointer nodes.
// Candidates of one election may use different credentials if the prefix
// and the election's persistent nodes (queue, roster) grant all of them;
// each one's own nodes are then its creator's alone. A pass to a target
// in line whose queue entry another user made must write that entry: the
// refused multi changes nothing, the leader deletes its key, and the head
// of the line leads instead of the target.
//
// # Guarantees
//
// Promised: at most one session holds an election's key (the pointer
// names one lead node, and a term's writes are guarded by the pointer's
// version); tokens of successive holders strictly increase; a session's
// lead node goes when the session is closed or expires, which ends its
// term, and a session expires no sooner than its TTL after the last
// KeepAlive was sent. Every call returns when its ctx ends.
//
// Not promised: a pass to a candidate in line given no entry
// (Target.Entry 0, the target's record showed none) points the pointer
// at its roster record: a WatchSet's WatchEntry request made after it
// sees the pass, but one already waiting wakes only when the entry ahead
// goes. A watch left by a WatchSet request stopped or replaced stays
// registered until the node's next change: go-zookeeper cannot remove
// watches.
package zookeeper
