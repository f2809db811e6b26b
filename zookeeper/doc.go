// Package zookeeper is the leasehold adapter for Apache ZooKeeper, built on
// github.com/go-zookeeper/zk. A Store dials the ensemble itself, from the
// addresses, ACL and credentials the caller gives it, because in ZooKeeper
// a session is a connection's: every Session is a go-zookeeper connection
// of its own.
//
// Application code should use package lease; this package only connects it
// to ZooKeeper.
//
//	store, err := zookeeper.New([]string{"zk1:2181", "zk2:2181", "zk3:2181"}, zookeeper.Options{
//		TickTime: 2 * time.Second, // the servers' tickTime: TTLs from 4s to 40s
//		Auth:     []zookeeper.Auth{{Scheme: "digest", Credentials: []byte("alice:" + password)}},
//	})
//	...
//	defer store.Close()
//	e, err := lease.New(store, lease.Options{TTL: 10 * time.Second})
//
// # Keys and tokens
//
// An election's leader key is the node Prefix + "/" + its node name
// (default prefix /leasehold), created as an EPHEMERAL node of the
// candidate's session; missing parents are created as persistent nodes
// with the same ACL. The create fails if the node exists, which makes it a
// compare-and-swap. The fencing token is the node's czxid, which ZooKeeper
// assigns in strictly increasing order; Record.Owner is its ephemeralOwner,
// the holder's session ID in hex. A create whose reply was lost is retried
// by package lease: the retry finds the node, sees this session's ID as its
// owner and returns it (Curator's protection, without a GUID in the name:
// a session's connection never carries another session, see below, so a
// node owned by this session ID is this session's).
//
// # Node names
//
// Every election is one child of Prefix, so that elections never nest:
// "a" and "a/b" are independent, as on the other stores. An election's
// node name is the name with '/', the escape character '%' and every
// other byte outside [A-Za-z0-9._-] written as '%' and two upper-case hex
// digits: "a/b" is node Prefix + "/a%2Fb", "p.b" is "p.b". The mapping is
// one to one and reversible, and a name without '/' is its own node name.
// Queue nodes (Prefix + "/~queue/" + node name), epoch nodes (Prefix +
// "/~epoch/" + node name, see Guarantees) and guarded-write data nodes
// (Prefix + "/~data/" + the key's node name) are named the same way.
//
// Versions of this package before the mapping nested names: "a/b" was the
// node Prefix + "/a/b", under a persistent "a". For names without '/'
// nothing changed. For a name with '/', an old and a new candidate use
// different nodes and do not see each other: two could lead at once. Stop
// every old candidate of such elections before starting new ones. A
// persistent node an old version left at a leader node's path (the parent
// "x" of an old "x/y") reads as no leader, and a Create replaces it in one
// multi if it has no children; if it still has some (an old version is
// running), Create fails saying so.
//
// # ACLs and credentials
//
// Every node the Store creates gets Options.ACL. Without Options.Auth the
// default is world:anyone with every permission, which protects nothing:
// any client of the ensemble can read, overwrite or delete a leader node
// and so end its holder's leadership. With Auth the default is
// CREATOR_ALL_ACL (every permission to the identities the credentials
// authenticate: for digest, that user with that password) plus world
// read, or CREATOR_ALL_ACL alone with Options.NoWorldRead. ZooKeeper lets
// whoever may delete children of a node delete any child: so Prefix's ACL
// is what protects the leader nodes from deletion, and every candidate
// of a prefix needs the same credentials (or an Options.ACL granting them
// all). Nodes that already exist keep their ACL, including a Prefix an
// older version or another tool made open: set it with zkCli's setAcl. A
// Store with credentials logs a warning on Options.Logger when it finds
// Prefix letting anyone create or delete its children.
//
// ZooKeeper accepts any digest when credentials are added; a wrong
// password shows only where a node's ACL does not match it. New contacts
// no server, so the check is at NewSession, the first step of every
// campaign: after adding the credentials it sends one multi that would
// create and delete a child of Prefix and then fails on purpose, which
// commits nothing but tells whether the ACLs allow both; Prefix is created
// first if missing. NOAUTH there, or AUTH_FAILED when adding the
// credentials, fails NewSession with an error wrapping
// backends.ErrPermission that names Prefix and the identity
// ("digest:alice", never the password). NOAUTH, AUTH_FAILED and
// INVALIDACL from any other call are ErrPermission too: permanent.
//
// Record.Revision is a zxid: the highest one the connection had received
// from the server when the read returned (every reply carries the server's
// last zxid), so it is at or after the state read. go-zookeeper does not
// expose reply zxids; the Store reads them off the wire (see below).
//
// # Sessions
//
// NewSession opens a connection with the TTL as session timeout and waits
// for the session. The server clamps the timeout to its
// minSessionTimeout..maxSessionTimeout (by default 2×tickTime..20×tickTime):
// Session.TTL reports what it granted, and NewSession fails if that is less
// than asked, so a holder's deadline never outlasts its session. Limits
// reports Options.MinTTL and MaxTTL, by default derived from
// Options.TickTime in the same way; set them to match zoo.cfg.
//
// ZooKeeper renews a session on any request, and go-zookeeper pings on its
// own every third of the session timeout, which would keep a session alive
// whether or not its elector still renews it. On a session's connection
// the Store turns those pings off: it shows go-zookeeper a negotiated
// timeout of about 12 days (rewriting the handshake on the wire, while
// still asking the server for the TTL on every reconnect), so that
// KeepAlive, one request, is the session's only heartbeat and the session
// expires a TTL after the last renewal the elector sent, as it would on any
// other store. With go-zookeeper's read timeout gone too, a KeepAlive that
// gets no reply before its deadline drops the TCP connection itself.
//
// With Options.TLS every connection is TLS to the servers' secureClientPort
// (ZooKeeper 3.5 or later, serverCnxnFactory
// org.apache.zookeeper.server.NettyServerCnxnFactory; ssl.clientAuth=need
// for mutual TLS): the Store dials TLS and reads and rewrites the frames
// above it, as it does above TCP.
//
// While the connection is down and the session not yet expired (Curator's
// SUSPENDED), calls fail; package lease then ends a leadership at its own
// deadline, counted from the send time of the last successful KeepAlive,
// before the server can expire the session. If go-zookeeper reconnects
// within the session timeout, the session, its nodes and its watches go on.
// Once the server reports the session expired (Curator's LOST), every call
// fails with an error wrapping backends.ErrSessionExpired, and the
// connection never reconnects: go-zookeeper would otherwise open a new
// session on it without telling anyone. Session.Close sends closeSession,
// and the server deletes the session's nodes at once.
//
// # Watches
//
// Wait reads the node with a watch set by the same request (getData, or
// exists when the node is absent), returns if the node differs from the
// known Record and otherwise waits for the watch's notification, about a
// round trip after the change commits. Get and the first read of Wait
// follow a sync, so they see every change the leader committed before they
// began. Get and Wait use the Store's own connection, which needs no
// session of the caller's.
//
// # Queue
//
// The Store is a backends.Queuer. An election's queue entries are the
// children of Prefix + "/~queue/" + its node name, a persistent node made
// with the first entry and never deleted (so its sequence counter never
// starts again): each is an EPHEMERAL_SEQUENTIAL node of its session named "~" +
// session ID + "-" + the 10-digit sequence number, and its token is that
// number plus 1. Ahead and WaitGone sync and read on the Store's own
// connection; WaitGone leaves a getData watch on the entry.
//
// # Configuring ZooKeeper
//
// A leader's TTL is its session timeout, so it must lie within the servers'
// minSessionTimeout..maxSessionTimeout: with the default tickTime of 2s,
// 4s to 40s. For shorter TTLs lower tickTime (tickTime=200 allows 400ms to
// 4s) or set minSessionTimeout. The server expires sessions in tickTime
// buckets: a silent session ends between its TTL and TTL + tickTime after
// its last renewal, so a crashed leader blocks its successor for up to
// TTL + tickTime; keep tickTime a small fraction of the TTL. In an
// ensemble a follower passes session renewals to the leader about every
// tickTime/2; lease's SafetyMargin (default TTL/4, at least tickTime/2 as
// TTL ≥ 2×tickTime) covers that. Values are limited to MaxValueSize by the
// servers' jute.maxbuffer.
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
// election has a persistent epoch node (Store.EpochPath) whose version
// the multi that creates a leader node raises, and their multis check
// that version as read before the leader node. A successor's node created
// between the read and the multi fails the check.
//
// Not promised: a leader node made by an older version of this package
// raised no epoch, so while older versions still campaign, a successor
// they create between the read and the multi of a Delete or GuardedPut
// goes unseen (a window of one round trip, as before). A watch left by a Wait whose ctx ended stays
// registered until the node's next change: go-zookeeper cannot remove
// watches.
package zookeeper
