// Package lease elects one leader per election through a linearizable store
// (etcd, ZooKeeper, Consul) and tells the leader the moment it stops being
// one.
//
// A LeaseElector holds one store session (an etcd lease, a ZooKeeper
// session, a Consul session) and campaigns for any number of elections over
// it. Leadership of an election is a compare-and-swap create of its leader
// key, bound to the session. The winner gets a Leadership carrying a fencing
// token from the store and a context that is cancelled when the leadership
// ends. A loser waits in line: it takes a place in a queue in the store,
// bound to the session, and watches only the entry ahead of it; only the
// head of the queue watches the key, and creates it when it goes. A
// release thus wakes one waiter, not all of them.
//
//	e, err := lease.New(store, lease.Options{TTL: 10 * time.Second})
//	...
//	defer e.Close(ctx)
//	err = e.Run(ctx, "jobs/scheduler", func(ctx context.Context, l *lease.Leadership) error {
//		for ctx.Err() == nil {
//			job := next(ctx)
//			if err := l.Valid(); err != nil { // right before each write
//				return err
//			}
//			write(job, l.Token) // send l.Token with every write
//		}
//		return nil
//	})
//
// In key mode (Options.Wait: WaitKey) every loser instead watches the
// key. The key, its
// tokens and the guarantees below are the same in both modes, and
// candidates of both kinds may share an election.
//
// # Candidates
//
// Each campaign also publishes a candidate record in the election's
// roster, bound to its session: its identity, Options.Priority and
// Options.Labels (with the campaign's own WithLabels merged over them),
// whether it may lead (Options.NoLead) and whether it is
// damped (Options.Damping). It writes the record once, when its first
// outcome is known (it won, or found the key taken and took its place in
// line), and deletes it when the campaign or leadership ends; a crashed
// candidate's record goes with its session. LeaseElector.Candidates lists
// the records in succession order, and ObserveCandidates follows the list
// as Observe follows the leader. A leader can also publish a value to
// observers without a new term or token (Leadership.Proclaim,
// LeaderInfo.Value).
//
// # Election policies
//
// Options.Priority, Preempt, NoLead, Damping and FollowRoster, and
// Leadership.HandOver, RequestHandover and Leadership.Proclaim, change
// only which candidate takes the key and when a leader lets it go; the
// guarantees below hold with any of them. What each is for and what it
// costs: docs/policies.md. This is how they work.
//
// A candidate record also holds the candidate's join time (its own
// clock, for display) and its queue entry's token if it waits in line. It
// is rewritten only when its damped state changes or on a new session. A
// leader that resigns or hands over deletes it in the same write that
// releases or passes its key (backends.End.Leave), so no second write of
// the old leader's competes with its successor's. Place in line and join
// order are store positions (a queue entry's token, the record's own),
// which compare on etcd and Consul; on ZooKeeper a queue token is a
// sequence number and a join token a czxid. Every leader follows its
// roster through its elector's WatchSet (backends.WatchRoster), reading
// it when it wins and after each change; it keeps the list in its core
// and a digest beside it, and its reads take the elector's call slots, so
// that elections won together do not read all at once ahead of the
// renewals.
//
// A handover, however started (HandOver, a preemption, a request, or a
// resign by a leader that knows its roster, which hands over to the next
// in line), goes in these steps:
//   - Yield (not on a resign): the leadership's context ends with a cause
//     wrapping ErrHandover; the key stays held and renewed until the
//     application lets go (Resign, Run's fn returning, or HandOver
//     itself) or SafetyMargin passes.
//   - Pass: one write rebinds the key to the target's session with a new,
//     higher token (backends.Capabilities.Passes), only if the key still
//     holds the leader's token and the target still holds its candidate
//     record and, in line, its queue entry. The key is never free in
//     between.
//   - The target, woken where it waits (on the key, or in line, where its
//     WatchSet request also answers once when the key is passed to its
//     session), leads on that answer without a write if the answer is
//     later than the last state it read and the store's waits answer
//     committed states (backends.Capabilities.CommittedWaits): a key
//     bound to a session moves only by that session's writes or ends with
//     it. Otherwise it confirms with one linearizable read, and reads
//     again after RetryInterval if that fails. An answer that reaches the
//     elector after it replaced or withdrew its request is not dropped:
//     if it shows the key bound to the elector's session, the campaign
//     confirms and leads. A record says whether its candidate wakes on a
//     pass in line; to one that does not (an earlier version), the leader
//     passes only if no entry is ahead of the target's (one read), and
//     deletes the key otherwise.
//   - If the pass fails (the target left, its session or entry is gone,
//     the store refused, or the answer was lost), the leader deletes its
//     key if it still holds it, and the normal election decides at once.
//     A key passed to a candidate whose campaign ended just then is
//     deleted by that candidate's elector once its record is gone.
//
// An elector that loses its session, or makes one too late, gives it up:
// it closes it, retrying while the store cannot be reached, and stands
// again under a new one. Until the close lands or the store expires the
// session (Consul: up to 2×TTL after its last renewal), its old record is
// still bound, so a record that a later record of the same identity
// supersedes (a higher join token) is never a handover's target, by
// identity, by session or as next in line, and never preempts. Two
// electors given one identity are thus taken for one, the later. A pass
// made before the new record is written still lands on the old session;
// the key then waits for the store to expire it, as for a target killed
// mid-handover.
//
// Preempt and FollowRoster make a resign read the roster once more before
// it decides (one round trip), so that a candidate Candidates already
// lists counts. Every leader follows its roster in the elector's watch
// set, so a RequestHandover reaches it with or without them.
//
// # Timing
//
// This section is the one statement of the timing arithmetic; option
// defaults are on the Options fields.
//
// The elector decides loss locally, on its monotonic clock: a leadership
// ends at the send time of the last successful renewal + Hold, where
//
//	Hold = TTL − SafetyMargin − ClockDrift×TTL
//
// or as soon as the store reports the session or the key gone, whichever
// comes first. The store cannot expire the session before the send time
// of the last renewal + TTL, so the old leader's context is cancelled at
// least SafetyMargin before anyone else can take the key. The elector
// keeps that promise itself too: a session it gives up at the deadline
// is closed, freeing its keys, SafetyMargin after the deadline and not
// sooner, rather than left to the store's expiry. No timestamp is ever
// read from the store. With the defaults at a TTL of 2 s: Hold
// 1.48 s, a renewal every 0.74 s, and 0.52 s between the holder's
// deadline and the earliest expiry.
//
// One renewal is in flight at a time, bounded only by the deadline: an
// answer that comes late still extends the deadline from its send time.
// The next renewal goes out RenewInterval after the last one's send, or
// earlier, so that an answer as slow as the last one still arrives
// before the deadline (Hold − 2×latency after the send, or at once). An
// answer must come back before the deadline the last answered renewal
// set, Hold after that one's send; the first slow renewal was sent
// RenewInterval after it, and in steady state two latencies must fit
// within Hold. A leadership therefore survives any renewal latency below
//
//	LatencyBound = min(Hold/2, Hold − RenewInterval)
//
// however suddenly it sets in (Options.LatencyBound computes it); at or
// above it, the deadline passes first. With the default RenewInterval the
// bound is Hold/2, 740 ms at a TTL of 2 s. For comparison, etcd's client
// renews about every 1 s and Consul's api.Lock every TTL/2, both with no
// margin; a RenewInterval of 0.55×TTL matches them but lowers the bound
// to 0.19×TTL. Every other store call but a wait is bounded by
// RequestTimeout, so a hung call cannot hold a decision back.
//
// # Checking before a write
//
// A Leadership's context is cancelled by the elector's goroutine. After the
// process was paused (SIGSTOP, a long GC, a frozen VM) past the holder's
// deadline, the application's goroutine can run before that one does, and
// find the context still live. Leadership.Valid does not wait for the
// elector: it reads the monotonic clock and compares it with the deadline
// at the moment it is called. Call it immediately before each write to a
// protected resource; Leadership.GuardedPut and Run call it too.
//
// What remains is the window between the check and the moment the write
// reaches the resource. Valid's nil promises that no other session can
// hold the key until at least SafetyMargin later, so a write that arrives
// within SafetyMargin of the check is safe; a pause or delay in the
// window longer than that can deliver it after a successor began. Only a
// fencing token closes that window: the resource, or the store for
// GuardedPut, rejects a token lower than one it has seen.
//
// # Guarantees
//
// Promised, given a linearizable store:
//   - At most one session holds an election's key at any time, and tokens
//     of successive terms of an election strictly increase.
//   - A Leadership's context is cancelled before the store can give the key
//     to another, provided the local clock runs no more than ClockDrift
//     slower than the store's and the process is not paused. This covers a
//     leader whose renewals stop succeeding (a cut link, a slow or failed
//     store); when the store itself ends the session early or someone else
//     deletes the key, the key is already free when the leader hears of it,
//     and fencing tokens cover the overlap. Run's fn is
//     never called twice at once, and its return is the only "stopped"
//     signal, so there is no stop without a start.
//   - Leadership.Valid returns nil only while the leadership's context
//     would still be live if the elector's goroutine had run: never after
//     the holder's deadline, even when the process was paused past it.
//     Once it has returned an error, the leadership ends and Valid never
//     returns nil again.
//   - Resign deletes the key only while it holds this term's token, never a
//     successor's.
//   - A campaign whose session expires while it waits makes a new session
//     and goes on; it never reports leadership on a dead session.
//
// Not promised:
//   - That a leader stops acting in time if its process is paused (GC,
//     SIGSTOP, a VM migration) between its check (Valid) and its write, or
//     its clock jumps beyond the drift allowance. A lease cannot stop a
//     paused process. Fencing tokens can: a resource that rejects tokens
//     lower than one it has seen (package fencing) makes a paused
//     ex-leader harmless.
//   - That the application stops within SafetyMargin of its context being
//     cancelled. Choose the margin to cover that.
//   - Progress while the store is unavailable: campaigns retry every
//     RetryInterval until their context ends.
//
// # Permanent errors
//
// A store error wrapping backends.ErrPermission (etcd RBAC, Consul ACLs,
// ZooKeeper ACLs or credentials refused), backends.ErrTLS (a TLS
// handshake with the store failed on a certificate: see docs/security.md) or
// backends.ErrLayout (the store's prefix is laid out by another version
// of leasehold: see docs/stores.md) is never retried. Campaign, AwaitSession, Leader and Resign return it at
// once; Observe sends it as the Err of its last LeaderInfo and closes its
// channel; a leader whose renewal or watch of its key is refused (its
// rights were revoked) loses the leadership at once, with the refusal as
// the cause (Reason "permission", or "tls"). The elector logs the refusals its own calls meet at
// error level. Other errors are retried as above.
//
// # Stability
//
// This section is the one statement of what a version of this module
// promises; the CHANGELOG links here. Before v1.0.0, as semantic
// versioning allows, a minor version may break compatibility, and the
// CHANGELOG says how. Expected to change before v1:
//   - the driver contract, package backends (Driver, Session, WatchSet,
//     Capabilities, Layout) and the suites built on it (backendtest,
//     leasetest, shardtest): only adapter writers use them;
//   - the store layout, the keys or nodes each adapter keeps under its
//     prefix. It carries a layout version (backends.Layout), and an
//     elector refuses a prefix of another version with
//     backends.ErrLayout, so electors of two layouts never share a
//     prefix: a release that changes the layout needs every elector of a
//     prefix upgraded together, or a new prefix;
//   - package lease/shard (its Options and the assignment it computes)
//     and the test kit, package leaseholdtest.
//
// Not weakened in any version: the guarantees above (at most one holder,
// rising fencing tokens, a context cancelled before the key can pass on,
// Valid, a resign that never touches a successor's key). The API of this
// package, package fencing and the adapters' New and Options is meant to
// change only by additions; any other change is named under "Changed" in
// the CHANGELOG, and `make release-check` (gorelease) lists every change
// of the API against the last tag before it is released.
package lease
