package zookeeper

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"
)

// TestHandshakeTimeout: a TLS handshake gets half the session TTL, within
// [go-zookeeper's connect timeout, maxHandshake].
func TestHandshakeTimeout(t *testing.T) {
	for _, c := range []struct{ connect, ttl, want time.Duration }{
		{time.Second, 4 * time.Second, 2 * time.Second},
		{time.Second, 30 * time.Second, maxHandshake},
		{time.Second, time.Second, time.Second},
		{3 * time.Second, 4 * time.Second, 3 * time.Second},
	} {
		if got := handshakeTimeout(c.connect, c.ttl); got != c.want {
			t.Errorf("handshakeTimeout(%v, %v) = %v, want %v", c.connect, c.ttl, got, c.want)
		}
	}
}

// connectResponse is a server's connect response: timeout ms, session id.
func connectResponse(ms uint32, id uint64) []byte {
	b := binary.BigEndian.AppendUint32(nil, 4+4+8+4+2)
	b = binary.BigEndian.AppendUint32(b, 0) // protocol version
	b = binary.BigEndian.AppendUint32(b, ms)
	b = binary.BigEndian.AppendUint64(b, id)
	b = binary.BigEndian.AppendUint32(b, 2)
	return append(b, "pw"...)
}

// TestHandshakeConn: the connection go-zookeeper reads records the
// negotiated timeout from the connect response, in reads of any size; on
// a session link it shows go-zookeeper quietTimeout there and asks the
// server for the TTL in the connect request, and passes every other byte
// through unchanged. A response for an expired session (ID 0, timeout 0)
// leaves the timeout known before.
func TestHandshakeConn(t *testing.T) {
	reply := append(connectResponse(2000, 0x99), 0, 0, 0, 16, 1, 2, 3)
	request := append(connectRequest(quietTimeout), 0, 0, 0, 8, 4, 5, 6)
	for _, ttl := range []time.Duration{0, 3 * time.Second} {
		for _, n := range []int{1, 3, 7, len(reply)} {
			l := &link{ttl: ttl}
			got, sent := exchange(t, l, reply, request, n)
			wantIn, wantOut := reply, request
			if ttl > 0 {
				wantIn = append(connectResponse(uint32(quietTimeout.Milliseconds()), 0x99), reply[26:]...)
				wantOut = append(connectRequest(ttl), request[len(connectRequest(0)):]...)
			}
			if !bytes.Equal(got, wantIn) || !bytes.Equal(sent, wantOut) || l.negotiated() != 2*time.Second {
				t.Fatalf("ttl %v, chunks of %d: read %x, sent %x, negotiated %v; want %x, %x, 2s",
					ttl, n, got, sent, l.negotiated(), wantIn, wantOut)
			}
			l.handshake(connectResponse(0, 0)[:connectHead])
			if l.negotiated() != 2*time.Second {
				t.Fatalf("negotiated %v after an expired handshake, want the earlier 2s", l.negotiated())
			}
		}
	}
}

// connectRequest is a client's connect request for a new session.
func connectRequest(timeout time.Duration) []byte {
	b := binary.BigEndian.AppendUint32(nil, 4+8+4+8+4)
	b = binary.BigEndian.AppendUint32(b, 0) // protocol version
	b = binary.BigEndian.AppendUint64(b, 0) // last zxid seen
	b = binary.BigEndian.AppendUint32(b, uint32(timeout.Milliseconds()))
	b = binary.BigEndian.AppendUint64(b, 0) // session ID
	return binary.BigEndian.AppendUint32(b, 0)
}

// exchange has a handshakeConn of l read reply and write request, in
// chunks of n bytes, and returns what go-zookeeper would read and what
// the server got.
func exchange(t *testing.T, l *link, reply, request []byte, n int) (read, sent []byte) {
	t.Helper()
	client, server := net.Pipe()
	got := make(chan []byte, 1)
	go func() {
		_, _ = server.Write(reply)
		b, _ := io.ReadAll(server)
		got <- b
	}()
	c := &handshakeConn{Conn: client, l: l}
	buf := make([]byte, n)
	for len(read) < len(reply) {
		k, err := c.Read(buf)
		read = append(read, buf[:k]...)
		if err != nil {
			t.Fatal(err)
		}
	}
	for p := request; len(p) > 0; p = p[min(n, len(p)):] {
		if _, err := c.Write(p[:min(n, len(p))]); err != nil {
			t.Fatal(err)
		}
	}
	client.Close()
	return read, <-got
}
