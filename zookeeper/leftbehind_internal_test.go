package zookeeper

import (
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// TestLeftBehindClosed: a read that go-zookeeper failed with
// ErrConnectionClosed on a session's link is read once more elsewhere,
// although the link may still report its session (go-zookeeper fails
// such requests as soon as the server closed the socket, before it tells
// the connection lost); on the read link, the Store's own, it is not.
func TestLeftBehindClosed(t *testing.T) {
	err := fmt.Errorf("get: %w", zk.ErrConnectionClosed)
	if !leftBehind(&link{ttl: 2 * time.Second}, err) {
		t.Error("ErrConnectionClosed on a session link: not left behind, want a second read on another link")
	}
	if leftBehind(&link{}, err) {
		t.Error("ErrConnectionClosed on the read link: left behind, want the error")
	}
}
