package zktest

import (
	"encoding/binary"
	"fmt"
	"io"
	"time"
)

// The harness speaks a few frames of ZooKeeper's client protocol itself,
// below go-zookeeper, to read a session's password off its connect
// response and to close a session from a connection of its own. On the
// wire every frame is a 4-byte big-endian length followed by that many
// bytes; offsets here count the length prefix.

const (
	closeSessionOp = -11
	maxFrame       = 0xfffff // ZooKeeper's default jute.maxbuffer
)

// connectResponse is the server's answer to a connect request.
type connectResponse struct {
	sessionID int64  // 0 if the session expired
	password  []byte // needed to attach to the session
}

// parseConnectResponse decodes a connect response frame: protocol
// version, timeout, session ID and password follow the length.
func parseConnectResponse(frame []byte) (connectResponse, error) {
	if len(frame) < 24 {
		return connectResponse{}, fmt.Errorf("zktest: connect response of %d bytes is too short", len(frame))
	}
	r := connectResponse{sessionID: int64(binary.BigEndian.Uint64(frame[12:]))}
	n := int(int32(binary.BigEndian.Uint32(frame[20:])))
	if n < 0 {
		return r, nil
	}
	if 24+n > len(frame) {
		return connectResponse{}, fmt.Errorf("zktest: connect response password of %d bytes overruns the frame", n)
	}
	r.password = append([]byte(nil), frame[24:24+n]...)
	return r, nil
}

// replyErr decodes the error code of a reply frame: length, xid and zxid
// come before it.
func replyErr(frame []byte) (int32, error) {
	if len(frame) < 20 {
		return 0, fmt.Errorf("zktest: reply of %d bytes is too short", len(frame))
	}
	return int32(binary.BigEndian.Uint32(frame[16:])), nil
}

// appendConnectRequest appends a connect request that attaches to the
// session with the given ID and password (ID 0 and a nil password ask for
// a new session).
func appendConnectRequest(b []byte, sessionID int64, password []byte, timeout time.Duration) []byte {
	start := len(b)
	b = binary.BigEndian.AppendUint32(b, 0) // length, set below
	b = binary.BigEndian.AppendUint32(b, 0) // protocol version
	b = binary.BigEndian.AppendUint64(b, 0) // last zxid seen
	b = binary.BigEndian.AppendUint32(b, uint32(timeout.Milliseconds()))
	b = binary.BigEndian.AppendUint64(b, uint64(sessionID))
	b = binary.BigEndian.AppendUint32(b, uint32(len(password)))
	b = append(b, password...)
	binary.BigEndian.PutUint32(b[start:], uint32(len(b)-start-4))
	return b
}

// appendCloseRequest appends a close-session request with the given xid.
func appendCloseRequest(b []byte, xid int32) []byte {
	b = binary.BigEndian.AppendUint32(b, 8)
	b = binary.BigEndian.AppendUint32(b, uint32(xid))
	op := int32(closeSessionOp)
	return binary.BigEndian.AppendUint32(b, uint32(op))
}

// readFrame reads one frame, length prefix included.
func readFrame(r io.Reader) ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(head[:])
	if n > maxFrame {
		return nil, fmt.Errorf("zktest: frame of %d bytes exceeds %d", n, maxFrame)
	}
	frame := make([]byte, 4+n)
	copy(frame, head[:])
	if _, err := io.ReadFull(r, frame[4:]); err != nil {
		return nil, err
	}
	return frame, nil
}
