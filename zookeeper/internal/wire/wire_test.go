package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"time"
)

func TestConnectRequestLayout(t *testing.T) {
	pw := []byte("0123456789abcdef")
	b := AppendConnectRequest([]byte("x"), 0x1234, pw, 1500*time.Millisecond)[1:]
	if n := binary.BigEndian.Uint32(b); int(n) != len(b)-4 || n != 4+8+4+8+4+16 {
		t.Fatalf("length %d for a %d-byte frame", n, len(b))
	}
	if ms := binary.BigEndian.Uint32(b[RequestTimeoutOffset:]); ms != 1500 {
		t.Fatalf("timeout %d ms at RequestTimeoutOffset, want 1500", ms)
	}
	if id := binary.BigEndian.Uint64(b[20:]); id != 0x1234 || !bytes.Equal(b[32:], pw) {
		t.Fatalf("session %x password %q", id, b[32:])
	}
}

func TestParseConnectResponse(t *testing.T) {
	body := binary.BigEndian.AppendUint32(nil, 0)          // protocol
	body = binary.BigEndian.AppendUint32(body, 4000)       // timeout
	body = binary.BigEndian.AppendUint64(body, 0xfeedface) // session
	body = binary.BigEndian.AppendUint32(body, 3)
	body = append(body, "pw!"...)
	frame := append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
	r, err := ParseConnectResponse(frame)
	if err != nil || r.Timeout != 4*time.Second || r.SessionID != 0xfeedface || string(r.Password) != "pw!" {
		t.Fatalf("ParseConnectResponse = %+v, %v", r, err)
	}
	if to, id := ConnectHead(frame[:HeadLen]); to != 4*time.Second || id != 0xfeedface {
		t.Fatalf("ConnectHead = %v, %x", to, id)
	}
	if _, err := ParseConnectResponse(frame[:23]); err == nil {
		t.Fatal("a truncated response parsed")
	}
	if _, err := ParseConnectResponse(frame[:26]); err == nil {
		t.Fatal("a password overrunning the frame parsed")
	}
}

func TestCloseRequestAndReply(t *testing.T) {
	want := []byte{0, 0, 0, 8, 0, 0, 0, 7, 0xff, 0xff, 0xff, 0xf5}
	if got := AppendCloseRequest(nil, 7); !bytes.Equal(got, want) {
		t.Fatalf("AppendCloseRequest = %x, want %x", got, want)
	}
	reply := []byte{0, 0, 0, 16, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 1, 2, 0xff, 0xff, 0xff, 0x90}
	h, err := ParseReplyHeader(reply)
	if err != nil || h != (ReplyHeader{Xid: 7, Zxid: 0x102, Err: -112}) {
		t.Fatalf("ParseReplyHeader = %+v, %v", h, err)
	}
	if _, err := ParseReplyHeader(reply[:19]); err == nil {
		t.Fatal("a truncated reply parsed")
	}
}

func TestReadFrame(t *testing.T) {
	in := []byte{0, 0, 0, 2, 'h', 'i', 0, 0, 0, 0}
	r := bytes.NewReader(in)
	for _, want := range [][]byte{in[:6], in[6:]} {
		if got, err := ReadFrame(r); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("ReadFrame = %x, %v; want %x", got, err, want)
		}
	}
	if _, err := ReadFrame(bytes.NewReader([]byte{0, 0, 0, 5, 1})); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("truncated frame: %v, want ErrUnexpectedEOF", err)
	}
	if _, err := ReadFrame(bytes.NewReader([]byte{0x10, 0, 0, 0})); err == nil {
		t.Fatal("an oversized frame was accepted")
	}
}
