package env

import (
	"encoding/binary"
	"slices"
	"testing"
	"time"
)

// zkFrame returns a length-prefixed packet of the int32s and strings in
// fields, in order.
func zkFrame(fields ...any) []byte {
	var body []byte
	for _, f := range fields {
		switch f := f.(type) {
		case int32:
			body = binary.BigEndian.AppendUint32(body, uint32(f))
		case int64:
			body = binary.BigEndian.AppendUint64(body, uint64(f))
		case string:
			body = binary.BigEndian.AppendUint32(body, uint32(len(f)))
			body = append(body, f...)
		}
	}
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
}

// TestZKFramesCutsPackets: packets cut across chunks, and several in one
// chunk, come out whole, after each side's handshake and without pings:
// a request with its opcode and path, a multi without one, a reply with
// its xid and error, a notification with its type and path.
func TestZKFramesCutsPackets(t *testing.T) {
	up := slices.Concat(zkFrame(int32(0), int64(0), int32(4000), int64(0), "pw"), // connect
		zkFrame(int32(7), int32(ZKOpGetData), "/a/b", int32(1)),
		zkFrame(int32(zkXidPing), int32(11)),
		zkFrame(int32(8), int32(ZKOpMulti), int32(5), int32(0), int32(-1)))
	down := slices.Concat(zkFrame(int32(0), int32(4000), int64(9), "pw"), // connect
		zkFrame(int32(zkXidEvent), int64(-1), int32(0), int32(3), int32(3), "/a/c"),
		zkFrame(int32(7), int64(42), int32(-101)))
	f := &ZKFrames{}
	t0 := time.Now()
	for i := range up { // a byte at a time
		f.Add(Chunk{Conn: 1, Up: true, At: t0, B: up[i : i+1]})
	}
	f.Add(Chunk{Conn: 1, At: t0, B: down}) // at once
	got := f.Between(t0, t0)
	want := []ZKPacket{
		{At: t0, Conn: 1, Up: true, Xid: 7, Code: ZKOpGetData, Path: "/a/b"},
		{At: t0, Conn: 1, Up: true, Xid: 8, Code: ZKOpMulti},
		{At: t0, Conn: 1, Xid: zkXidEvent, Code: 3, Path: "/a/c"},
		{At: t0, Conn: 1, Xid: 7, Code: -101},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("packets\n%v\nwant\n%v", got, want)
	}
	if !got[2].Notification() || got[3].Notification() {
		t.Fatal("Notification does not tell the notification from the reply")
	}
	if len(f.Between(t0.Add(time.Nanosecond), t0.Add(time.Second))) != 0 {
		t.Fatal("Between returned packets read before its start")
	}
}
