package backends

// RosterSegment is the path segment under an adapter's prefix below which
// it keeps its candidate records: "~roster". No election name contains
// '~', so a record never collides with a leader key, and it differs from
// QueueSegment and from DataSegment.
//
// The roster holds the candidates of each election, one record per
// session, bound to it (Session.Join and Leave; Driver.List and
// WatchRoster requests). It backs package lease's candidate list
// (LeaseElector.Candidates), its election policies (priority, handover)
// and the requests of `leasehold handover`. The store only keeps the
// records; what a value means, and the succession order, are package
// lease's.
const RosterSegment = "~roster"
