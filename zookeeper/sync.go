package zookeeper

// synced runs read on l once a sync of path has been answered. A
// ZooKeeper server answers a sync once it has caught up with the leader
// as of the sync, so the read, sent after the answer, sees every change
// the ensemble committed before synced was called (the "sync, then read"
// of ZooKeeper's documentation). A server l reconnects to meanwhile
// serves it no older state: go-zookeeper gives it the last zxid l saw,
// the sync's included, and a server behind that refuses the connection.
//
// It costs two round trips. The server would hold a read sent right
// behind the sync until the sync is done, but go-zookeeper's calls block
// until answered and it promises no order between calls made from
// different goroutines, so nothing in its API tells when the read may
// follow (see the package doc, Reads).
func synced[T any](l *link, path string, read func() (T, error)) (T, error) {
	testHookSync.call(path)
	if _, err := l.conn.Sync(path); err != nil {
		var zero T
		return zero, err
	}
	return read()
}

// syncedIf is synced if sync is set, and read alone otherwise.
func syncedIf[T any](l *link, path string, sync bool, read func() (T, error)) (T, error) {
	if sync {
		return synced(l, path, read)
	}
	return read()
}

// testHookSync runs as synced sends its sync; tests set it.
var testHookSync testHook[string]
