package env

import (
	"io"
	"net"
	"testing"
	"time"
)

// TestLinkDelay: an echo server's reply comes back through a link at once,
// then no sooner than the delay set, then at once again after it is removed.
func TestLinkDelay(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(c, c) }()
		}
	}()
	k, err := NewLink(&Store{Kind: ZooKeeper, Endpoints: []string{ln.Addr().String()}})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	c, err := net.Dial("tcp", k.Store.Endpoints[0])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	echo := func() time.Duration {
		t0 := time.Now()
		if _, err := c.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, make([]byte, 1)); err != nil {
			t.Fatal(err)
		}
		return time.Since(t0)
	}
	const d = 200 * time.Millisecond
	if rt := echo(); rt >= d {
		t.Fatalf("round trip without delay %v, want < %v", rt, d)
	}
	k.SetDelay(d)
	if rt := echo(); rt < d {
		t.Fatalf("round trip with delay %v, want ≥ %v", rt, d)
	}
	k.SetDelay(0)
	if rt := echo(); rt >= d {
		t.Fatalf("round trip after removing the delay %v, want < %v", rt, d)
	}
}
