// Package consul is the leasehold adapter for Consul, built on a
// github.com/hashicorp/consul/api client that the caller made and owns.
//
// Application code should use package lease; this package only connects it
// to Consul. How the adapter uses Consul (key and queue layout, session
// settings and why, timing, api.Lock interop, per-client connection
// limits, Options.SessionNode) is described in docs/stores.md of the
// repository, and the ACL rights an elector needs in docs/security.md.
// This doc states the contract of the Store's calls.
//
// # Keys and tokens
//
// An election's leader key is the KV key Prefix + election name, locked
// ("acquired") by the holder's session as api.Lock does it: it carries the
// flags api.LockFlagValue and the holder's value. A key that exists but is
// not locked by any session has no leader: its Record has Token 0.
//
// The fencing token is the key's ModifyIndex at acquisition: the Raft index
// of the transaction that locked it, greater than every earlier index,
// including those of earlier incarnations of the key (LockIndex would not
// do: it restarts at 1 when the key is deleted). This package never
// modifies a key it holds; if someone else writes it (a plain PUT keeps the
// lock), its ModifyIndex, and so its token, changes, and the holder's
// elector treats that as having lost the key.
//
// # Create, Delete and Close
//
// Create is one KV transaction, "the key does not exist; lock it with the
// session; read it back", so taking a free key costs one round trip. If the
// key exists, Create reads it and acts on what it read: held by another
// session, it reports backends.ErrKeyExists with the holder's record, whose
// Revision Wait takes; left unlocked, or deleted since the transaction (a
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
// Delete and Close delete the key in a transaction guarded by its modify
// index, so they never delete a successor's key. Close first deletes the
// keys its session took, then destroys the session, so that it arms no
// lock-delay.
//
// # Waiting
//
// Wait is a blocking query on the key, from the index the known state was
// read at, repeated while the key is unchanged (a blocking query also
// returns when its wait time runs out, and, for an absent key, when other
// keys change). A Record's Revision is the X-Consul-Index of the read: the
// key's ModifyIndex while it exists, the KV store's index when it does
// not. As Consul's blocking-query rules require, an index that goes
// backwards (a snapshot restore, another server's view) restarts the query
// from 0.
//
// The Store is a backends.Queuer: an entry's token is its key's
// CreateIndex, and WaitGone is a blocking query on the entry ahead.
//
// The Store is also a backends.Watcher: its WatchSets share one blocking
// query, a recursive list of the prefix, however many elections they
// serve, over one connection. A request is answered from the first answer
// of that query read at or after its Record's Revision in which its state
// differs. A failed query ends the requests pending then, with
// backends.ErrPermission on a 403 or when Consul filtered the list by the
// token's ACLs (a watcher needs read on the whole prefix), and otherwise
// with backends.ErrUnavailable. A Change's Record has the index of that
// list as its Revision.
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
