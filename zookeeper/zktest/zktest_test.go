package zktest

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends/backendtest"
)

// fakeServer accepts one connection and runs serve on it.
func fakeServer(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		serve(c)
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String()
}

// connectResponseFrame is a server's connect response for session id.
func connectResponseFrame(id int64, pw []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(4+4+8+4+len(pw)))
	b = binary.BigEndian.AppendUint32(b, 0)    // protocol version
	b = binary.BigEndian.AppendUint32(b, 4000) // timeout, ms
	b = binary.BigEndian.AppendUint64(b, uint64(id))
	b = binary.BigEndian.AppendUint32(b, uint32(len(pw)))
	return append(b, pw...)
}

// TestLinkLearnsSession: a Link of the harness forwards both ways and
// records the session of the connect response it forwards.
func TestLinkLearnsSession(t *testing.T) {
	pw := []byte("0123456789abcdef")
	addr := fakeServer(t, func(c net.Conn) {
		_, _ = c.Write(connectResponseFrame(0x42, pw))
		_, _ = io.Copy(c, c) // echo
	})
	h := &Harness{}
	l := backendtest.NewLink(t, []string{addr}, h.proxyOptions())
	c, err := net.Dial("tcp", l.Addrs()[0])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := readFrame(c); err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	password := h.passwords[0x42]
	h.mu.Unlock()
	if !bytes.Equal(password, pw) {
		t.Fatalf("password %q, want %q", password, pw)
	}
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	echo := make([]byte, 4)
	if _, err := io.ReadFull(c, echo); err != nil || string(echo) != "ping" {
		t.Fatalf("echo %q, %v", echo, err)
	}
}

// TestCloseSessionSpeaksZooKeeper: ExpireSession's exchange is a connect
// request with the session's ID and password, then a closeSession.
func TestCloseSessionSpeaksZooKeeper(t *testing.T) {
	pw := []byte("0123456789abcdef")
	seen := make(chan [2][]byte, 1)
	addr := fakeServer(t, func(c net.Conn) {
		req, err := readFrame(c)
		if err != nil {
			return
		}
		_, _ = c.Write(connectResponseFrame(0x42, pw))
		closeReq, err := readFrame(c)
		if err != nil {
			return
		}
		seen <- [2][]byte{req, closeReq}
		reply := append([]byte{0, 0, 0, 16}, closeReq[4:8]...)
		_, _ = c.Write(append(reply, make([]byte, 12)...))
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := closeSession(ctx, []string{addr}, nil, 0x42, pw); err != nil {
		t.Fatal(err)
	}
	got := <-seen
	if want := appendConnectRequest(nil, 0x42, pw, 0); !bytes.Equal(got[0], want) {
		t.Errorf("connect request %x, want %x", got[0], want)
	}
	if want := appendCloseRequest(nil, 1); !bytes.Equal(got[1], want) {
		t.Errorf("close request %x, want %x", got[1], want)
	}
}
