package zookeeper

import (
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
