package env

import (
	"net"
	"testing"
)

// TestConns counts the connections of this process to a listener on
// loopback: none, then two.
func TestConns(t *testing.T) {
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
			defer c.Close()
		}
	}()
	s := &Store{Kind: Etcd, Endpoints: []string{"http://" + ln.Addr().String()}}
	if n, err := s.Conns(); err != nil || n != 0 {
		t.Fatalf("Conns before dialing = %d, %v; want 0", n, err)
	}
	for range 2 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	if n, err := s.Conns(); err != nil || n != 2 {
		t.Fatalf("Conns after two dials = %d, %v; want 2", n, err)
	}
}
