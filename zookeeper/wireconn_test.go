package zookeeper

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/leasehold/leasehold/zookeeper/internal/wire"
)

// chunkConn reads from r at most n bytes at a time and records writes.
type chunkConn struct {
	net.Conn
	r       io.Reader
	n       int
	written bytes.Buffer
}

func (c *chunkConn) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

func (c *chunkConn) Write(p []byte) (int, error) { return c.written.Write(p) }

// frame builds a frame, length prefix included.
func frame(body ...[]byte) []byte {
	b := bytes.Join(body, nil)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

func be32(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
func be64(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

// serverStream is a connect response (2s, session 0x77) then replies with
// zxids 5, 9 and 7, a notification and a reply with a long body.
func serverStream() []byte {
	pw := bytes.Repeat([]byte{0xab}, 16)
	s := frame(be32(0), be32(2000), be64(0x77), be32(16), pw, []byte{0})
	for _, z := range []int64{5, 9, 7} {
		s = append(s, frame(be32(1), be64(z), be32(0), []byte("payload"))...)
	}
	s = append(s, frame(be32(-1), be64(-1), be32(0), []byte("event"))...)
	return append(s, frame(be32(2), be64(8), be32(0), bytes.Repeat([]byte{1}, 3000))...)
}

// TestWireConnReads feeds the server's stream in chunks of every size: the
// link learns the negotiated timeout and the highest zxid, and a session
// link shows go-zookeeper quietTimeout instead of the negotiated one.
func TestWireConnReads(t *testing.T) {
	in := serverStream()
	for _, ttl := range []time.Duration{0, 2 * time.Second} {
		for n := 1; n <= 41; n++ {
			l := &link{ttl: ttl}
			c := &wireConn{Conn: &chunkConn{r: bytes.NewReader(in), n: n}, l: l}
			got, err := io.ReadAll(c)
			if err != nil {
				t.Fatal(err)
			}
			want := bytes.Clone(in)
			if ttl > 0 {
				wire.PutMillis(want[wire.ResponseTimeoutOffset:], quietTimeout)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("ttl %v, chunks of %d: go-zookeeper read %x, want %x", ttl, n, got[:24], want[:24])
			}
			if l.negotiated() != 2*time.Second || l.zxid.Load() != 9 {
				t.Fatalf("ttl %v, chunks of %d: negotiated %v, zxid %d; want 2s, 9", ttl, n, l.negotiated(), l.zxid.Load())
			}
		}
	}
}

// TestWireConnWrites: a session link asks the server for its TTL in its
// connect request, whatever timeout go-zookeeper put there, and leaves
// every other byte, and the caller's buffer, alone.
func TestWireConnWrites(t *testing.T) {
	req := wire.AppendConnectRequest(nil, 0x77, bytes.Repeat([]byte{0xab}, 16), quietTimeout)
	next := frame(be32(1), be32(3), []byte("/"), []byte{0})
	out := append(bytes.Clone(req), next...)
	for _, ttl := range []time.Duration{0, 1500 * time.Millisecond} {
		for n := 1; n <= len(out); n++ {
			cc := &chunkConn{}
			c := &wireConn{Conn: cc, l: &link{ttl: ttl}}
			sent := bytes.Clone(out)
			for p := sent; len(p) > 0; p = p[min(n, len(p)):] {
				if _, err := c.Write(p[:min(n, len(p))]); err != nil {
					t.Fatal(err)
				}
			}
			want := bytes.Clone(out)
			if ttl > 0 {
				wire.PutMillis(want[wire.RequestTimeoutOffset:], ttl)
			}
			if !bytes.Equal(cc.written.Bytes(), want) || !bytes.Equal(sent, out) {
				t.Fatalf("ttl %v, writes of %d: server got %x, want %x (caller's buffer changed: %v)",
					ttl, n, cc.written.Bytes()[:24], want[:24], !bytes.Equal(sent, out))
			}
		}
	}
}

// TestExpiredHandshakeKeepsTimeout: a connect response for an expired
// session (ID 0, timeout 0) does not overwrite the negotiated timeout.
func TestExpiredHandshakeKeepsTimeout(t *testing.T) {
	in := append(frame(be32(0), be32(2000), be64(0x77), be32(0)), frame(be32(0), be32(0), be64(0), be32(0))...)
	l := &link{ttl: time.Second}
	for _, f := range [][]byte{in[:24], in[24:]} {
		c := &wireConn{Conn: &chunkConn{r: bytes.NewReader(f), n: len(f)}, l: l}
		if _, err := io.ReadAll(c); err != nil {
			t.Fatal(err)
		}
	}
	if l.negotiated() != 2*time.Second {
		t.Fatalf("negotiated %v after an expired handshake, want the earlier 2s", l.negotiated())
	}
}
