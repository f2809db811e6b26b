package backends

// QueueSegment is the path segment under an adapter's prefix below which
// it keeps its queue entries: "~queue". No election name contains '~', so
// an entry never collides with a leader key.
//
// The queue is an ordered queue of waiting candidates per election, bound
// to sessions (Session.Enqueue; Driver.Ahead, Dequeue; WatchEntry
// requests).
// It backs package lease's ordered-queue mode (lease.WaitQueue, its
// default), in which a waiting candidate watches only the entry just
// ahead of it, as the waiters of etcd's concurrency.Election and
// Curator's LeaderLatch do, so that a release wakes one waiter instead of
// all of them.
//
// The queue only orders the waiting. Leadership is still the leader key
// and its compare-and-swap create: the head of the queue watches the
// leader key and creates it when it is free. So candidates in queue mode
// and candidates without it may share an election safely; the latter
// simply do not wait in line.
const QueueSegment = "~queue"
