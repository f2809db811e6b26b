// Package consul is the leasehold adapter for Consul, built on a
// github.com/hashicorp/consul/api client that the caller made and owns.
//
// Application code should use package lease; this package only connects it
// to Consul. What a user must know of it (timing, api.Lock interop,
// connection limits, Options.SessionNode) is in docs/stores.md of the
// repository, and the ACL rights an elector needs in docs/security.md.
// This doc states the contract of the Store's calls.
//
// # Sessions
//
// A session has the TTL asked (Consul allows 10 s to 24 h), the delete
// behavior, no health checks, and the lock-delay Options.LockDelay.
//   - delete: when Consul invalidates a session it deletes the keys the
//     session held instead of unlocking them, as the store contract asks;
//     no stale holder value is left, and api.Lock waiters take an absent
//     key as readily as an unlocked one.
//   - No health checks: Consul's default session is bound to the agent's
//     serfHealth check and is invalidated the moment that check fails,
//     long before the TTL, while the elector's safety rests on no session
//     ending before its TTL after its last renewal was sent. Deregistering
//     a node (consul leave) still ends its sessions at once: an
//     operator's act, like a destroy.
//   - Lock-delay: 1 ms by default, the smallest the api package can send;
//     a zero would make the server apply 15 s.
//
// Consul promises only that a session is not invalidated before its TTL
// after the last renewal; its leader invalidates it 2×TTL after the last
// renewal it handled, and a new Consul leader restarts every session's
// clock. The Store relies only on "not before TTL". A session belongs to
// the node of the agent that created it, or to Options.SessionNode, and
// ends, its keys deleted, within seconds of that node's failure
// (integration/consul_node_test.go).
//
// # Keys and tokens
//
// An election's leader key is the KV key Prefix + election name, locked
// ("acquired") by the holder's session as api.Lock does it: it carries the
// flags api.LockFlagValue and the holder's value. A key that exists but is
// not locked by any session has no leader: its Record has Token 0. An
// api.Lock holder and an elector on the same key exclude each other in
// both directions (consul/apilock_test.go: each takes the key 3–8 ms
// after the other releases).
// Prefix + "~layout" holds the layout's version (backends.Layout).
//
// The fencing token is the key's ModifyIndex at acquisition: the Raft index
// of the transaction that locked it, greater than every earlier index,
// including those of earlier incarnations of the key (LockIndex would not
// do: it restarts at 1 when the key is deleted). This package modifies a
// key it holds only in Proclaim; if someone else writes it (a plain PUT
// keeps the lock), its ModifyIndex, and so its token, changes, and the
// holder's elector treats that as having lost the key.
//
// # Proclaim
//
// A Proclaim changes the key's value, and so its ModifyIndex, while the
// token must stay. It keeps the token in the value: it writes the new
// value followed by a trailer, "\n\x00leasehold-token=" and the token in
// decimal, and the token of a locked key with the flags api.LockFlagValue
// whose value ends with such a trailer, naming a token below its
// ModifyIndex, is that token; the Record's Value is what precedes the
// trailer. Every other key's token is its ModifyIndex. Every acquisition,
// this package's and api.Lock's, writes a whole value, so a trailer never
// outlives its incarnation, and Create and Proclaim refuse a value that
// holds the trailer's bytes. Proclaim is one transaction, "the key holds
// the token; it is locked by this session; lock it again with this
// session and the new value; read it back": the relock keeps the session,
// the CreateIndex, the LockIndex and the flags.
//
// The flags stay api.LockFlagValue because api.Lock refuses, with
// api.ErrLockConflict, any key it finds with other flags, even while it
// only waits: keeping the token in the flags would end every api.Lock
// waiting on a proclaimed key. The cost is that a reader of the raw key
// (the consul CLI, an older leasehold) sees the trailer after a Proclaim.
//
// The guard "the key holds the token" of End, GuardedPut and Proclaim
// is a check of the key's ModifyIndex against the token, in the same
// transaction as the write: one request while the key is as acquired. If
// the check fails, the call reads the key, and if it is locked and holds
// the token by the rule above (it was proclaimed), runs the transaction
// once more, checked against the ModifyIndex just read, so that a change
// in between still rolls it back: two requests after a Proclaim, and a
// plain error (try again) if the key changed between them. This is the
// one place a call makes a second attempt.
//
// # Create, End and Close
//
// Create is one KV transaction, "the key does not exist; lock it with the
// session; read it back", so taking a free key costs one round trip. If the
// key exists, Create reads it and acts on what it read: held by another
// session, it reports backends.ErrKeyExists with the holder's record, whose
// Revision a WatchKey request takes; left unlocked, or deleted since the transaction (a
// resign racing the campaign), it takes it with a second transaction
// guarded by that state. If the key changes once more in between, Create
// fails with a plain error and the elector tries again after its
// RetryInterval; Create never goes round. A key whose flags are not
// api.LockFlagValue is not a lock: Create refuses it with an error wrapping
// api.ErrLockConflict, as api.Lock does, and never overwrites it. A lock
// Consul refuses on a free key is backends.ErrSessionExpired if the session
// is gone and a plain error otherwise (the key's lock-delay is in force),
// never ErrKeyExists: a waiter would wait for a change that does not come.
//
// End deletes the key, or passes it to a target, and Close deletes the
// keys, in transactions guarded by their modify indexes, so they never
// touch a successor's key. Close first deletes the
// keys its session took, then destroys the session, so that it arms no
// lock-delay.
//
// A pass (End with a target, backends.Capabilities.Passes) is one
// transaction: check the key's ModifyIndex (the leader's token), check
// that the leader's session holds it, check that the target's session
// holds its roster record and, for a target in line, its queue entry;
// unlock; lock for the target's session with the target's value and
// api.LockFlagValue; read back. The new lock's ModifyIndex is the new
// token. An unlock arms no lock-delay, and Consul lets a transaction lock
// a key for another live session (backends/backendtest, Handover). With
// Leave the transaction also deletes the leader's roster record. After a
// Proclaim, the holder's own End and pass check the ModifyIndex its
// Proclaim returned: one request.
//
// # Waiting
//
// A WatchKey request served on its own key is a blocking query on the
// key, from the index the known state was read at, repeated while the key
// is unchanged (a blocking query also returns when its wait time runs
// out, and, for an absent key, when other keys change). A Record's Revision is the X-Consul-Index of the read: the
// key's ModifyIndex while it exists, the KV store's index when it does
// not. As Consul's blocking-query rules require, an index that goes
// backwards (a snapshot restore, another server's view) restarts the query
// from 0.
//
// The driver keeps the queue: an entry is the key Prefix + "~queue/" +
// election + "/~" + session ID, locked by its session; its token is its
// key's CreateIndex, and a WatchEntry request served on its own key is a
// blocking query on the entry ahead, which returns when the entry is
// gone or has been written after the Record's Revision.
//
// The driver keeps the roster: a session's record is the KV key
// Prefix + "~roster/" + election + "/~" + session ID, locked by the
// session like a queue entry; its token is its CreateIndex. Join relocks
// it with the new value (one transaction, which keeps the CreateIndex),
// Leave deletes it guarded by a session check (one transaction), and List
// is a consistent list of the election's records. A WatchRoster request
// is answered from the WatchSets' query of the prefix when the records'
// digest differs from the request's.
//
// While the driver has key queries to spare (Options.KeyQueries, default
// none), a WatchSet serves a request
// with blocking queries on its own keys: a WatchKey request on the leader
// key, a WatchEntry request on the entry and on the leader key, for a
// pass behind the entry. Beyond them, its WatchSets share one blocking query, a
// recursive list of the prefix, however many elections they serve, over
// one connection (consul/watch_heap_test.go, 2026-11-23, 793a85d: 10,000
// waiting elections on one set, 460 B of Go heap each, where a blocking
// query per election, with its goroutine and connection, cost 14,656 B).
// A request is answered from the first state read at or after its
// Record's Revision in which it differs. A failed query ends
// the requests pending on it, with backends.ErrPermission on a 403 or
// when Consul filtered the list by the token's ACLs (a watcher needs read
// on the whole prefix), and otherwise with backends.ErrUnavailable. A
// Change's Record has the index of the read that answered as its
// Revision.
//
// A blocking query hears of nothing while the server it blocks on is
// behind: a server cut off from its peers, and, after the cut heals, until
// the cluster's leader has caught it up, which took 26.8 s after a 15 s
// cut (2026-12-02, d021318). So when any other request of the Store
// fails on its way (no answer before its deadline, a transport error, a
// 5xx), the Store sends every blocking query it has in flight again, from
// the index each had: the client, or the agent it talks to, routes the
// new one anew. Without it, a waiter whose query blocked on the cut-off
// server heard of a release the others committed only after the heal
// (TestConsulWatchThroughIsolatedServer: 5 s allowed, 3–13 ms taken at
// d021318).
//
// A WatchEntry request also answers, once, when the key is locked since
// by a session whose entry is behind the one watched, so a target waiting
// in line learns of a pass where it waits (the queue is listed once when
// the wait starts, so that the target finds its own entry). Every answer
// is a state Consul committed (backends.Capabilities.CommittedWaits): a
// server's state store holds only what Raft committed, so a lagging
// server's view is older, with a lower index, never another history, and
// a key locked by the target's live session moves only by the target's
// own writes.
//
// # Errors
//
// Every call makes one attempt and honours its context. An error wraps
// backends.ErrUnavailable only when the request surely did not happen: the
// connection was refused, or Consul answered 429 Too Many Requests (its
// per-client connection limit or its rate limiter). Transactions and
// renewals go through the api's raw calls, because api.Txn and
// api.Session.Renew drop the status code or the body of such answers. A
// 500 from Consul is not a lost session: only a renewal answered "not
// found" is backends.ErrSessionExpired.
//
// A request the ACLs refuse fails with an error wrapping
// backends.ErrPermission and Consul's words: a 403 ("Permission denied",
// or "ACL not found" for an unknown token), and a transaction rolled back
// with those words in its operation errors (Consul answers 409 then, as
// for a failed check; Consul's own code tells them apart by the same
// words, as its op errors carry no code). Package lease does not retry
// it.
package consul
