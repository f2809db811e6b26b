package zookeeper

import (
	"bytes"
	"errors"
	"testing"

	"github.com/leasehold/leasehold/zookeeper/internal/wire"
)

// failConn fails every write.
type failConn struct{ chunkConn }

func (*failConn) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// TestWireConnCountsSyncs writes a connect request, a ping, a sync and a
// getData in writes of every size: the link counts the one sync, once it
// is written, and a mark taken before it is then past.
func TestWireConnCountsSyncs(t *testing.T) {
	out := wire.AppendConnectRequest(nil, 0, nil, quietTimeout)
	out = append(out, frame(be32(-2), be32(11))...)                     // ping
	out = append(out, frame(be32(1), be32(9), be32(1), []byte("/"))...) // sync "/"
	synced := len(out)
	out = append(out, frame(be32(2), be32(4), be32(2), []byte("/a"), []byte{0})...) // getData "/a"
	for n := 1; n <= len(out); n++ {
		l := &link{ttl: 0}
		c := &wireConn{Conn: &chunkConn{}, l: l, id: l.syncs.open()}
		m := l.syncs.mark()
		for off := 0; off < len(out); off += n {
			if _, err := c.Write(out[off:min(off+n, len(out))]); err != nil {
				t.Fatal(err)
			}
			if ok, _ := l.syncs.past(m); ok != (off+n >= synced) {
				t.Fatalf("writes of %d, %d bytes written: past %v; the sync ends at %d", n, min(off+n, len(out)), ok, synced)
			}
		}
		if ok, _ := l.syncs.past(m); !ok || l.syncs.sent != 1 || l.syncs.begun != 1 {
			t.Fatalf("writes of %d: past %v, %d syncs begun and %d written; want 1 and 1", n, ok, l.syncs.begun, l.syncs.sent)
		}
		if !bytes.Equal(c.Conn.(*chunkConn).written.Bytes(), out) {
			t.Fatalf("writes of %d: the server got other bytes", n)
		}
	}
}

// TestSyncsMarkAfter: a sync begun before a mark does not count for it,
// a failed write or a new connection ends the count (past reports no
// channel to wait on), and a write on an old connection counts nothing.
func TestSyncsMarkAfter(t *testing.T) {
	sync := frame(be32(1), be32(9), be32(1), []byte("/"))
	l := &link{}
	c := &wireConn{Conn: &chunkConn{}, l: l, id: l.syncs.open()}
	c.out.frame = 1          // past the handshake
	l.syncs.writing(c.id, 1) // a sync whose write began before the mark
	m := l.syncs.mark()
	l.syncs.wrote(c.id, 1, true)
	if ok, moved := l.syncs.past(m); ok || moved == nil {
		t.Fatalf("a sync begun before the mark: past %v, moved %v; want false and a channel", ok, moved)
	}
	_, moved := l.syncs.past(m)
	if _, err := c.Write(sync); err != nil {
		t.Fatal(err)
	}
	select {
	case <-moved:
	default:
		t.Fatal("a written sync did not close moved")
	}
	if ok, _ := l.syncs.past(m); !ok {
		t.Fatal("a sync begun after the mark and written: not past")
	}

	m = l.syncs.mark()
	bad := &wireConn{Conn: &failConn{}, l: l, id: c.id, out: c.out}
	if _, err := bad.Write(sync); err == nil {
		t.Fatal("failConn wrote")
	}
	if ok, moved := l.syncs.past(m); ok || moved != nil || l.syncs.same(m) {
		t.Fatalf("after a failed write: past %v, moved %v, same %v; want false, nil, false", ok, moved, l.syncs.same(m))
	}

	m = l.syncs.mark()
	old := c.id
	l.syncs.open()
	stale := &wireConn{Conn: &chunkConn{}, l: l, id: old, out: c.out}
	if _, err := stale.Write(sync); err != nil {
		t.Fatal(err)
	}
	if ok, moved := l.syncs.past(m); ok || moved != nil {
		t.Fatalf("a sync on an old connection: past %v, moved %v; want false, nil", ok, moved)
	}
}
