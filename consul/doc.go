// Package consul is the leasehold adapter for Consul, built on a
// github.com/hashicorp/consul/api client that the caller made and owns.
//
// Application code should use package lease; this package only connects it
// to Consul.
//
// # Keys, sessions and tokens
//
// An election's leader key is the KV key Prefix + election name. A session
// is a Consul session with a TTL (10 s to 24 h, Consul's defaults), the
// "delete" behavior, no health checks and a lock-delay of
// Options.LockDelay. Holding the key means having it locked ("acquired")
// by the session, exactly as api.Lock does it: the key carries the flags
// api.LockFlagValue and the holder's value, so an application that uses
// Consul's own api.Lock on the same key contends correctly with electors of
// this package, in both directions. A key that exists but is not locked by
// any session (as api.Lock's Unlock leaves it) has no leader: its Record
// has Token 0.
//
// Create is one KV transaction, "the key does not exist; lock it with the
// session; read it back", so taking a free key costs one round trip. If the
// key exists, Create reads it and acts on what it read: held by another
// session, it reports backends.ErrKeyExists with the holder's record, whose
// Revision Wait takes; left unlocked (as api.Lock's Unlock leaves it), or
// deleted since the transaction (a resign racing the campaign), it takes
// it with a second transaction guarded by that state. If the key changes
// once more in between, Create fails with a plain error and the elector
// tries again after its RetryInterval; Create never goes round. A key whose
// flags are not api.LockFlagValue is not a lock: Create refuses it with an
// error wrapping api.ErrLockConflict, as api.Lock does, and never
// overwrites it. A lock Consul refuses on a free key is
// backends.ErrSessionExpired if the session is gone and a plain error
// otherwise (the key's lock-delay is in force), never ErrKeyExists: a
// waiter would wait for a change that does not come.
//
// The fencing token is the key's ModifyIndex at acquisition: the Raft index
// of the transaction that locked it, which is greater than every earlier
// index, including those of earlier incarnations of the key. (LockIndex
// would not do: it restarts at 1 when the key is deleted.) A held key keeps
// that ModifyIndex as long as nobody writes it: this package never modifies
// a key it holds. If someone else writes the held key (a plain PUT keeps
// the lock), its ModifyIndex, and so its token, changes, and the holder's
// elector treats that as having lost the key.
//
// Delete and Close delete the key in a transaction guarded by its modify
// index, so they never delete a successor's key. Close first deletes the
// keys its session took, then destroys the session: destroying a session
// that still holds keys arms their lock-delay, and a waiter whose acquire
// lands inside it is turned away (api.Lock then sleeps 5 s). Deleting a key
// arms no lock-delay.
//
// # Waiting
//
// Wait is a blocking query on the key, from the index the known state was
// read at, repeated while the key is unchanged (a blocking query also
// returns when its wait time runs out, and, for an absent key, when other
// keys change). It sees a change about one round trip after it commits. A
// Record's Revision is the X-Consul-Index of the read: the key's
// ModifyIndex while it exists, the KV store's index when it does not. As
// Consul's blocking-query rules require, an index that goes backwards (a
// snapshot restore, another server's view) restarts the query from 0.
//
// Every waiting candidate and every leader (which watches its own key)
// holds one HTTP connection in a blocking query. Consul serves at most
// limits.http_max_conns_per_client connections per client IP address
// (default 200) and answers the rest with 429, renewals included, so on one
// host (one IP) keep the elections waited on or held well below that, or
// raise the limit on the agents. Consul stretches a blocking query's wait
// by up to 1/16 at random: the client's http.Client must not time out
// before Options.WaitTime × 17/16.
//
// # Queue
//
// The Store is a backends.Queuer. A session's entry in an election's queue
// is the KV key Prefix + "~queue/" + election + "/~" + session ID, locked
// by the session (so it goes when the session is invalidated), and its
// token is its CreateIndex. Enqueue locks and reads it in one transaction;
// Ahead lists the queue's keys; WaitGone is a blocking query on the entry
// ahead, so a release wakes only the waiter behind it.
//
// # Choices
//
// Behavior "delete": when Consul invalidates a session (TTL, Destroy), it
// deletes the keys the session held instead of merely unlocking them. This
// is what the backends contract asks ("it deletes every key bound to it"),
// it leaves no stale holder value behind, and api.Lock waiters handle it:
// they take a key that is absent as readily as one that is unlocked.
//
// No health checks: Consul's default session is bound to the agent's
// serfHealth check and is invalidated the moment that check fails, which
// can happen long before the TTL. The elector's safety rests on the store
// never ending a session before TTL after its last renewal was sent, so
// sessions here are TTL-only. (Deregistering the agent's node, as a
// "consul leave" does, still invalidates its sessions at once; that is an
// operator's act, like a Destroy.)
//
// Lock-delay: Consul refuses to lock a key for the session's lock-delay
// after a session holding it was invalidated, to give a holder that has no
// deadline of its own time to notice. Package lease stops a leader before
// its TTL runs out, so the delay only slows a failover after a crash or a
// Destroy. The default is DefaultLockDelay, 1 ms, the smallest the api
// package can send (it omits a zero LockDelay, and the server then applies
// 15 s). Raise it when api.Lock holders, which have no local deadline,
// share the keys. A candidate whose acquire lands inside the delay gets a
// plain error and tries again after the elector's RetryInterval.
//
// # Timing
//
// Consul promises only that a session is not invalidated before its TTL
// after the last renewal; in practice the leader invalidates it 2×TTL after
// the renewal it handled last (and a new Consul leader restarts every
// session's clock). Package lease relies only on "not before TTL": the
// holder stops before TTL, and a crashed holder's key is deleted 2×TTL
// after the last renewal Consul handled and can be taken once its
// lock-delay is over.
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
// # ACLs
//
// With ACLs on (default_policy = "deny"), the client's token needs, for an
// elector: key_prefix "<Prefix>" write (the leader keys, the queue entries
// and the guarded data all live under Prefix) and session write on the
// node its sessions are bound to (session_prefix "" write, or
// session "<node>" write; with Options.SessionNode also node:write on that
// name); key_prefix "<Prefix>" read suffices for Leader and Observe. A
// request the ACLs refuse fails with an error wrapping
// backends.ErrPermission and Consul's words: a 403 ("Permission denied",
// or "ACL not found" for an unknown token), and a transaction rolled back
// with those words in its operation errors (Consul answers 409 then, as
// for a failed check; Consul's own code tells them apart by the same
// words, as its op errors carry no code). Package lease does not retry
// it.
//
// What the ACLs do not do: every token with key write on Prefix may
// delete or overwrite any election's key there with a plain KV call, and
// every token with session write on the node may destroy the holder's
// session; candidates of one prefix must trust each other. Leadership is
// protected from tokens without those rights.
package consul
