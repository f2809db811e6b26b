package zookeeper

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// TestHostsRedialAtOnce: with one server, go-zookeeper dials again at once
// after a connection with a session that lasted a second is lost, and
// pauses (retryStart) once that dial has failed, or after a shorter
// connection; with none made it pauses at each pass.
func TestHostsRedialAtOnce(t *testing.T) {
	l := &link{tried: make(chan struct{})}
	h := hosts{zk.NewDNSHostProvider(), l}
	if err := h.Init([]string{"127.0.0.1:2181"}); err != nil {
		t.Fatal(err)
	}
	if _, retry := h.Next(); retry {
		t.Fatal("first Next paused")
	}
	if _, retry := h.Next(); !retry {
		t.Fatal("second Next with no connection made did not pause")
	}
	h.Connected()
	if _, retry := h.Next(); !retry {
		t.Fatal("Next right after a connection that lasted no time did not pause")
	}
	h.Connected()
	l.connectedAt.Add(-int64(time.Second)) // it lasted a second
	if _, retry := h.Next(); retry {
		t.Fatal("Next right after a lost connection of a second paused")
	}
	if _, retry := h.Next(); !retry {
		t.Fatal("Next after the redial failed did not pause")
	}
	select {
	case <-l.tried:
	default:
		t.Fatal("tried not closed after a pass in vain")
	}
}
