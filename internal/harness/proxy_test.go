package harness

import (
	"bytes"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// echoServer echoes every connection until t ends.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { defer c.Close(); _, _ = io.Copy(c, c) })
		}
	})
	return ln.Addr().String()
}

// roundTrip dials addr, sends "ping" and reads it back. It returns the
// error of the first step that failed.
func roundTrip(t *testing.T, addr string) (net.Conn, error) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	b := make([]byte, 4)
	if _, err := c.Write([]byte("ping")); err != nil {
		return c, err
	}
	if _, err := io.ReadFull(c, b); err != nil || string(b) != "ping" {
		return c, errors.Join(err, errors.New("no echo: "+string(b)))
	}
	return c, nil
}

// TestProxySeverHeal: the proxy forwards both ways; Sever cuts an open
// connection and refuses new ones; Heal forwards new ones again.
func TestProxySeverHeal(t *testing.T) {
	p, err := StartProxy(echoServer(t), ProxyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	open, err := roundTrip(t, p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	p.Sever()
	if n, err := open.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("read after Sever: %d bytes, %v; want EOF", n, err)
	}
	if _, err := roundTrip(t, p.Addr()); err == nil {
		t.Fatal("a connection made after Sever got through")
	}
	p.Heal()
	if _, err := roundTrip(t, p.Addr()); err != nil {
		t.Fatalf("after Heal: %v", err)
	}
}

// TestProxyFirstReply: the target's first message reaches the client as
// FirstReply rewrote it, also when the client speaks first.
func TestProxyFirstReply(t *testing.T) {
	p, err := StartProxy(echoServer(t), ProxyOptions{FirstReply: func(r io.Reader) ([]byte, error) {
		b := make([]byte, 4)
		_, err := io.ReadFull(r, b)
		return bytes.ToUpper(b), err
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 4)
	if _, err := io.ReadFull(c, b); err != nil || string(b) != "PING" {
		t.Fatalf("first reply %q, %v; want PING", b, err)
	}
}

// TestLinkSeversEveryProxy: a Link's Sever cuts every one of its proxies.
func TestLinkSeversEveryProxy(t *testing.T) {
	l := NewLink(t, []string{echoServer(t), echoServer(t)}, ProxyOptions{})
	l.Sever()
	for _, a := range l.Addrs() {
		if _, err := roundTrip(t, a); err == nil {
			t.Fatalf("%s forwarded after the Link was severed", a)
		}
	}
	l.Heal()
	for _, a := range l.Addrs() {
		if _, err := roundTrip(t, a); err != nil {
			t.Fatalf("%s after Heal: %v", a, err)
		}
	}
}

// TestProxyLatency: with a latency set, an echo comes back no sooner than
// the latency; set back to 0, the link is fast again.
func TestProxyLatency(t *testing.T) {
	p, err := StartProxy(echoServer(t), ProxyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	const d = 150 * time.Millisecond
	p.SetLatency(d)
	start := time.Now()
	c, err := roundTrip(t, p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < d {
		t.Fatalf("echo after %v with a latency of %v", took, d)
	}
	p.SetLatency(0)
	if _, err := c.Write([]byte("fast")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 4)
	if _, err := io.ReadFull(c, b); err != nil || string(b) != "fast" {
		t.Fatalf("echo %q, %v after the latency was lifted", b, err)
	}
}
