package storeurl

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

// TestOpenClosedPort: Open on a loopback port where nothing listens fails,
// for every store, with or without a user, naming the address and the
// refusal, not a deadline, long before the dial timeout: Open's context
// ends first (on etcd with a user, clientv3.New authenticates and waits
// for a connection until its deadline, so Open contacts the server
// without the user first).
func TestOpenClosedPort(t *testing.T) {
	addr := closedPort(t)
	for _, scheme := range []string{"etcd", "etcd://u:p@", "zk", "zk://u:p@", "consul"} {
		t.Run(scheme, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			start := time.Now()
			o, err := Open(ctx, storeURL(scheme, addr), Options{DialTimeout: time.Minute})
			if err == nil {
				o.Close()
				t.Fatal("Open succeeded")
			}
			t.Logf("%v after %v", err, time.Since(start).Round(time.Millisecond))
			if msg := err.Error(); !strings.Contains(msg, addr) || !strings.Contains(msg, "refused") {
				t.Errorf("Open: %v, want it to name %s and the refusal", err, addr)
			}
		})
	}
}

// storeURL is the URL of a store at addr with prefix /x: scheme is a
// scheme, or the URL's start up to the host (with a user).
func storeURL(scheme, addr string) string {
	if !strings.Contains(scheme, "://") {
		scheme += "://"
	}
	return scheme + addr + "/x"
}

// TestDialTimeout: Open gives up on an address that never answers after
// --dial-timeout, and says so. (On ZooKeeper, closing the Store then takes
// up to a second more: go-zookeeper waits that long for the answer to a
// closeSession it could not send.)
func TestDialTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0") // accepts (the backlog does) but never answers
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	for _, scheme := range []string{"etcd", "etcd://u:p@", "zk", "consul"} {
		t.Run(scheme, func(t *testing.T) {
			const timeout = 700 * time.Millisecond
			start := time.Now()
			o, err := Open(context.Background(), storeURL(scheme, addr), Options{DialTimeout: timeout})
			took := time.Since(start)
			if err == nil {
				o.Close()
				t.Fatal("Open succeeded")
			}
			t.Logf("%v after %v", err, took.Round(time.Millisecond))
			if took < timeout || took > timeout+3*time.Second {
				t.Errorf("Open failed after %v, want about the dial timeout %v", took, timeout)
			}
			if msg := err.Error(); !strings.Contains(msg, addr) || !strings.Contains(msg, "dial-timeout") {
				t.Errorf("Open: %v, want it to name %s and the dial timeout", err, addr)
			}
		})
	}
}

// closedPort returns a loopback address where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestCheckHosts(t *testing.T) {
	for _, c := range []struct {
		hosts   []string
		deflt   bool
		wantErr string
	}{
		{[]string{"a:1", "[::1]:65535"}, false, ""},
		{[]string{"a"}, true, ""},
		{[]string{"a"}, false, "no port"},
		{[]string{"a:99999"}, false, "1..65535"},
		{[]string{"a:0"}, true, "1..65535"},
		{[]string{"a:x"}, false, "1..65535"},
		{[]string{":2181"}, true, "no host"},
		{[]string{""}, true, "no host"},
		{[]string{"a:1", "a:"}, true, "1..65535"},
	} {
		err := checkHosts("x", c.hosts, c.deflt)
		if (err == nil) != (c.wantErr == "") || err != nil && !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("checkHosts(%q, %v) = %v, want %q", c.hosts, c.deflt, err, c.wantErr)
		}
	}
}
