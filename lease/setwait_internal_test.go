package lease

import (
	"context"

	"github.com/leasehold/leasehold/backends"
)

// setWait makes req in a WatchSet of d of its own and returns the
// answer, or an error wrapping ErrCanceled when ctx ends first.
func setWait(ctx context.Context, d backends.Driver, req backends.WatchRequest) backends.Change {
	ch := make(chan backends.Change, 1)
	set := d.Watch(func(c backends.Change) { ch <- c })
	defer set.Close()
	set.Wait(req)
	select {
	case c := <-ch:
		return c
	case <-ctx.Done():
		return backends.Change{Err: backends.Canceled(ctx)}
	}
}

// waitKey waits for known's key to differ from known (a WatchKey request).
func waitKey(ctx context.Context, d backends.Driver, known backends.Record) (backends.Record, error) {
	c := setWait(ctx, d, backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: known})
	return c.Record, c.Err
}

// waitList waits for election's roster to differ from recs, read at rev
// (a WatchRoster request), and lists it again.
func waitList(ctx context.Context, d backends.Driver, election string, recs []backends.Record, rev uint64) ([]backends.Record, uint64, error) {
	req := backends.WatchRequest{Kind: backends.WatchRoster, Tag: 1, Known: backends.Record{Election: election, Revision: rev}, Digest: backends.RosterDigest(recs)}
	if c := setWait(ctx, d, req); c.Err != nil {
		return nil, 0, c.Err
	}
	return d.List(ctx, election)
}
