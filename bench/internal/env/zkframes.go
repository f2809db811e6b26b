package env

import (
	"encoding/binary"
	"fmt"
	"sync"
	"time"
)

// ZKPacket is one ZooKeeper packet that a Link carried after its
// connection's handshake: a request (Up), a reply, or a notification
// (Xid −1). Pings are left out.
type ZKPacket struct {
	At   time.Time // when the link read its last byte
	Conn int
	Up   bool
	Xid  int32
	Code int32  // a request's opcode, a reply's error code, a notification's event type
	Path string // a request's or notification's first field, if a path
}

// ZooKeeper opcodes and xids the packets name.
const (
	ZKOpDelete    = 2
	ZKOpGetData   = 4
	ZKOpSync      = 9
	ZKOpChildren2 = 12
	ZKOpMulti     = 14
	zkXidEvent    = -1
	zkXidPing     = -2
)

var zkOpNames = map[int32]string{1: "create", ZKOpDelete: "delete", 3: "exists", ZKOpGetData: "getData",
	5: "setData", 8: "getChildren", ZKOpSync: "sync", ZKOpChildren2: "getChildren2", ZKOpMulti: "multi", 15: "create2",
	101: "setWatches", -11: "closeSession"}

// String renders p as a request, a reply or a notification.
func (p ZKPacket) String() string {
	switch {
	case p.Up:
		name, ok := zkOpNames[p.Code]
		if !ok {
			name = fmt.Sprint("op ", p.Code)
		}
		return fmt.Sprintf("c%d → %s %s (xid %d)", p.Conn, name, p.Path, p.Xid)
	case p.Notification():
		return fmt.Sprintf("c%d ← event %d %s", p.Conn, p.Code, p.Path)
	default:
		return fmt.Sprintf("c%d ← reply to xid %d, error %d", p.Conn, p.Xid, p.Code)
	}
}

// Notification reports whether p is a watch's notification.
func (p ZKPacket) Notification() bool { return !p.Up && p.Xid == zkXidEvent }

// ZKFrames cuts the chunks of a Link in front of a ZooKeeper server
// (Link.Tap) into packets, and keeps them.
type ZKFrames struct {
	mu      sync.Mutex
	bufs    map[zkSide][]byte
	shook   map[zkSide]bool
	packets []ZKPacket
}

// zkSide is one direction of one connection.
type zkSide struct {
	conn int
	up   bool
}

// Add takes chunk c.
func (f *ZKFrames) Add(c Chunk) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.bufs == nil {
		f.bufs, f.shook = map[zkSide][]byte{}, map[zkSide]bool{}
	}
	side := zkSide{c.Conn, c.Up}
	buf := append(f.bufs[side], c.B...)
	for len(buf) >= 4 {
		n := int(binary.BigEndian.Uint32(buf))
		if len(buf) < 4+n {
			break
		}
		body := buf[4 : 4+n]
		buf = buf[4+n:]
		if !f.shook[side] {
			f.shook[side] = true // the connect request or response
			continue
		}
		if p, ok := zkPacket(body, side); ok {
			p.At = c.At
			f.packets = append(f.packets, p)
		}
	}
	f.bufs[side] = buf
}

// zkPacket decodes a packet's header, and its path if it has one.
func zkPacket(b []byte, side zkSide) (ZKPacket, bool) {
	p := ZKPacket{Conn: side.conn, Up: side.up}
	if len(b) < 8 {
		return p, false
	}
	p.Xid = int32(binary.BigEndian.Uint32(b))
	switch {
	case p.Xid == zkXidPing:
		return p, false
	case side.up:
		p.Code = int32(binary.BigEndian.Uint32(b[4:]))
		if p.Code != ZKOpMulti {
			p.Path = zkString(b[8:])
		}
	case len(b) < 16:
		return p, false
	case p.Xid == zkXidEvent && len(b) >= 24:
		p.Code = int32(binary.BigEndian.Uint32(b[16:]))
		p.Path = zkString(b[24:])
	default:
		p.Code = int32(binary.BigEndian.Uint32(b[12:]))
	}
	return p, true
}

// zkString decodes a length-prefixed string, or returns "".
func zkString(b []byte) string {
	if len(b) < 4 {
		return ""
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	if n < 0 || 4+n > len(b) {
		return ""
	}
	return string(b[4 : 4+n])
}

// Between returns the packets read from a to b, in the order read.
func (f *ZKFrames) Between(a, b time.Time) []ZKPacket {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []ZKPacket
	for _, p := range f.packets {
		if !p.At.Before(a) && !p.At.After(b) {
			out = append(out, p)
		}
	}
	return out
}
