// Package wire encodes and decodes the few ZooKeeper protocol frames that
// package zookeeper and its test harness handle below go-zookeeper: the
// connect handshake, reply headers and the close-session request.
//
// On the wire every frame is a 4-byte big-endian length followed by that
// many bytes. Offsets here count from the start of the frame, length prefix
// included, as a byte stream sees them.
package wire

import (
	"encoding/binary"
	"fmt"
	"io"
	"time"
)

// Layout of the frames this package knows.
const (
	// RequestTimeoutOffset is where a client's connect request (its first
	// frame) holds the session timeout it asks for, an int32 of
	// milliseconds: after the length, the protocol version (int32) and the
	// last zxid seen (int64).
	RequestTimeoutOffset = 16
	// ResponseTimeoutOffset is where the server's connect response (its
	// first frame) holds the negotiated session timeout, an int32 of
	// milliseconds: after the length and the protocol version.
	ResponseTimeoutOffset = 8
	// HeadLen is how many leading bytes of a frame hold every field this
	// package reads: the connect response up to its session ID, or a
	// reply header (xid, zxid, error code).
	HeadLen = 20
	// MaxFrame bounds the frames ReadFrame accepts: ZooKeeper's default
	// jute.maxbuffer.
	MaxFrame = 0xfffff
)

const (
	closeSessionOp = -11
	syncOp         = 9
)

// IsSync reports whether head, the first bytes of a request frame after
// the connect request, is a sync request: its opcode follows the length
// and the xid.
func IsSync(head []byte) bool {
	return len(head) >= 12 && int32(binary.BigEndian.Uint32(head[8:])) == syncOp
}

// ConnectResponse is the server's answer to a connect request.
type ConnectResponse struct {
	// Timeout is the negotiated session timeout; 0 if the session expired.
	Timeout time.Duration
	// SessionID is the session's ID; 0 if the session expired.
	SessionID int64
	// Password is the session's password, needed to reattach to it.
	Password []byte
}

// ParseConnectResponse decodes a connect response frame, length prefix
// included.
func ParseConnectResponse(frame []byte) (ConnectResponse, error) {
	if len(frame) < 24 {
		return ConnectResponse{}, fmt.Errorf("zookeeper wire: connect response of %d bytes is too short", len(frame))
	}
	var r ConnectResponse
	r.Timeout, r.SessionID = ConnectHead(frame)
	n := int(int32(binary.BigEndian.Uint32(frame[20:])))
	if n < 0 {
		return r, nil
	}
	if 24+n > len(frame) {
		return ConnectResponse{}, fmt.Errorf("zookeeper wire: connect response password of %d bytes overruns the frame", n)
	}
	r.Password = append([]byte(nil), frame[24:24+n]...)
	return r, nil
}

// ConnectHead decodes the negotiated session timeout and the session ID
// from the first HeadLen bytes of a connect response.
func ConnectHead(head []byte) (timeout time.Duration, sessionID int64) {
	timeout = time.Duration(int32(binary.BigEndian.Uint32(head[ResponseTimeoutOffset:]))) * time.Millisecond
	return timeout, int64(binary.BigEndian.Uint64(head[12:]))
}

// ReplyHeader is the header of every reply to a request, of a ping and of
// a watch notification.
type ReplyHeader struct {
	// Xid is the request's ID: -1 for a notification, -2 for a ping.
	Xid int32
	// Zxid is the server's last committed zxid when it replied (-1 in
	// notifications).
	Zxid int64
	// Err is ZooKeeper's error code, 0 for success.
	Err int32
}

// ParseReplyHeader decodes the header of a reply frame, length prefix
// included.
func ParseReplyHeader(frame []byte) (ReplyHeader, error) {
	if len(frame) < HeadLen {
		return ReplyHeader{}, fmt.Errorf("zookeeper wire: reply of %d bytes is too short", len(frame))
	}
	return ReplyHeader{
		Xid:  int32(binary.BigEndian.Uint32(frame[4:])),
		Zxid: int64(binary.BigEndian.Uint64(frame[8:])),
		Err:  int32(binary.BigEndian.Uint32(frame[16:])),
	}, nil
}

// AppendConnectRequest appends a connect request that attaches to the
// session with the given ID and password (ID 0 and a nil password ask for
// a new session).
func AppendConnectRequest(b []byte, sessionID int64, password []byte, timeout time.Duration) []byte {
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

// AppendCloseRequest appends a close-session request with the given xid.
func AppendCloseRequest(b []byte, xid int32) []byte {
	b = binary.BigEndian.AppendUint32(b, 8)
	b = binary.BigEndian.AppendUint32(b, uint32(xid))
	op := int32(closeSessionOp)
	return binary.BigEndian.AppendUint32(b, uint32(op))
}

// PutMillis writes d as an int32 of milliseconds, the encoding of a
// session timeout, into b[:4].
func PutMillis(b []byte, d time.Duration) {
	binary.BigEndian.PutUint32(b, uint32(int32(d.Milliseconds())))
}

// ReadFrame reads one frame, length prefix included.
func ReadFrame(r io.Reader) ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(head[:])
	if n > MaxFrame {
		return nil, fmt.Errorf("zookeeper wire: frame of %d bytes exceeds %d", n, MaxFrame)
	}
	frame := make([]byte, 4+n)
	copy(frame, head[:])
	if _, err := io.ReadFull(r, frame[4:]); err != nil {
		return nil, err
	}
	return frame, nil
}
