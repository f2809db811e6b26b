// Package fencing implements fencing tokens: the check a protected resource
// performs so that a deposed leader cannot corrupt it.
//
// Leader election over a store such as etcd, ZooKeeper or Consul only tells a
// process that it was the leader at some point. A leader can pause (a GC
// stop, a swapped-out VM, a slow network) long enough for its lease to expire
// and for another process to be elected, and then wake up still believing it
// leads. Whatever it writes in that state races with the new leader. No
// amount of care on the leader's side closes this window, because the leader
// cannot know that it has been paused.
//
// The fix, described by Martin Kleppmann in "How to do distributed locking",
// moves the check to the resource. Each leadership comes with a fencing
// token, a number taken from the store that strictly increases from one
// leadership to the next and is never 0. The leader attaches its token to
// every write. The resource remembers the highest token it has accepted and
// rejects any write carrying a lower one. Once the new leader's first write
// has arrived, the old leader's writes are refused, however late they come.
//
// A [Guard] is that memory. Protected code calls [Guard.Admit] or, better,
// [Guard.Do] with the token of each incoming write. [SetHeader], [FromHeader]
// and [Guard.Middleware] carry tokens over HTTP. The fencinggrpc subpackage
// does the same for gRPC.
//
// # Guarantees
//
// A resource that sends every write through [Guard.Do] on one Guard never
// accepts a write carrying a lower token after it has accepted one carrying
// a higher token. Writes carrying the same token are all accepted, since one
// leader writes many times. The zero token is never accepted.
//
// [Guard.Admit] only makes the check itself atomic. A write made after Admit
// returns can still interleave with a write carrying a higher token. Use
// [Guard.Do] when writes must be ordered as well as checked.
//
// A Guard does not promise the following:
//
//   - It is not persistent. A Guard lives in memory and forgets everything
//     when the process exits. A resource that restarts must restore the
//     highest token from its own durable state, ideally stored atomically
//     with the data the tokens protect, and pass it to [NewGuard]. A resource
//     that restarts with a fresh Guard will accept a deposed leader's write.
//   - It protects only resources that check tokens. Writes that bypass the
//     Guard, and side effects outside the resource (sending email, calling
//     other services), are not fenced.
//   - It is per Guard. Two Guards, or two replicas of a resource that each
//     have their own Guard, do not share what they have seen.
//   - It does not say who is leader now. It says only that no higher token
//     has been seen here yet.
package fencing
