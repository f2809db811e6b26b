package zookeeper

import "sync"

// A linearizable read on ZooKeeper is a sync followed by the read. The
// server serves one session's requests in the order they arrive and holds
// a read behind the session's sync until it has caught up with the leader,
// so the read need not wait for the sync's answer, only follow it on the
// connection (the "sync, then read" of the ZooKeeper paper, section 2.3).
// go-zookeeper's calls block until answered, so the Store sends the sync
// from a goroutine and sends the read once wireConn has written a sync
// request begun after the call: one round trip instead of two.

// syncs counts the sync requests written on a link's connections
// (wireConn), for syncedRead.
type syncs struct {
	mu    sync.Mutex
	conn  uint64        // the connection counted; bumped by each new one and by a failed write
	begun uint64        // sync requests whose write began on conn
	sent  uint64        // sync requests written on conn, in begun's order
	moved chan struct{} // closed, and replaced, when sent or conn changes
}

// syncMark is a position in a link's sync requests.
type syncMark struct{ conn, begun uint64 }

// open starts counting on a new connection and returns its number.
func (s *syncs) open() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conn++
	s.begun, s.sent = 0, 0
	s.broadcastLocked()
	return s.conn
}

// writing counts n sync requests whose write on connection conn begins.
func (s *syncs) writing(conn uint64, n int) {
	if n == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if conn == s.conn {
		s.begun += uint64(n)
	}
}

// wrote counts the n sync requests of a write on conn as written if it
// succeeded. A failed write ends the count on conn: what it held is
// unknown, and a read waiting for it waits for its sync's answer.
func (s *syncs) wrote(conn uint64, n int, ok bool) {
	if n == 0 && ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case conn != s.conn:
		return
	case ok:
		s.sent += uint64(n)
	default:
		s.conn++
		s.begun, s.sent = 0, 0
	}
	s.broadcastLocked()
}

func (s *syncs) broadcastLocked() {
	if s.moved != nil {
		close(s.moved)
	}
	s.moved = make(chan struct{})
}

// mark returns the position now.
func (s *syncs) mark() syncMark {
	s.mu.Lock()
	defer s.mu.Unlock()
	return syncMark{s.conn, s.begun}
}

// past reports whether a sync request begun after m has been written on
// m's connection; if not, moved closes when that may have changed, and is
// nil if m's connection is no longer counted.
func (s *syncs) past(m syncMark) (ok bool, moved <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case m.conn != s.conn:
		return false, nil
	case s.sent > m.begun:
		return true, nil
	}
	if s.moved == nil {
		s.moved = make(chan struct{})
	}
	return false, s.moved
}

// same reports whether m's connection is still the one counted.
func (s *syncs) same(m syncMark) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return m.conn == s.conn
}

// syncedRead runs read on l after a sync of path. It sends read once a
// sync request begun after the call is on the wire, without waiting for
// its answer; it waits for the sync's answer before it returns, and
// fails with the sync's error. If the connection changed in between
// (the read may then have reached another server ahead of any sync), it
// runs read again, after the answer. read runs at most twice, never
// concurrently.
func syncedRead[T any](l *link, path string, read func() (T, error)) (T, error) {
	m := l.syncs.mark()
	answer := make(chan error, 1)
	go func() {
		_, err := l.conn.Sync(path)
		answer <- err
	}()
	var zero T
	if answered, err := l.awaitSent(m, answer); answered {
		if err != nil {
			return zero, err
		}
		return read() // the plain order: after the answer
	}
	v, err := read()
	if serr := <-answer; serr != nil {
		return zero, serr
	}
	if !l.syncs.same(m) {
		return read()
	}
	return v, err
}

// awaitSent waits until a sync request begun after m is written on m's
// connection, or the sync sent with m answers (answered: its error in
// err), whichever is first; if m's connection is no longer counted, it
// waits for the answer.
func (l *link) awaitSent(m syncMark, answer <-chan error) (answered bool, err error) {
	for {
		ok, moved := l.syncs.past(m)
		if ok {
			return false, nil
		}
		select {
		case err := <-answer:
			return true, err
		case <-moved: // a nil moved blocks: only the answer is left
		}
	}
}
