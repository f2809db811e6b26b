package consul

import (
	"bytes"
	"strconv"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
)

// record converts a leader key read at index rev into a Record. Only a key
// locked by a session is held; an absent or unlocked key has Token 0. The
// Token and Value of a held key are held's.
func record(election string, p *api.KVPair, rev uint64) backends.Record {
	rec := backends.Record{Election: election, Revision: rev}
	if p != nil && p.Session != "" {
		rec.Value, rec.Token = held(p)
		rec.Owner = p.Session
	}
	return rec
}

// tokenMark begins the trailer with which Proclaim keeps a leader key's
// token in its value: tokenMark + the token in decimal. The NUL byte keeps
// it out of any text value.
const tokenMark = "\n\x00leasehold-token="

// held returns the value and the token of a leader key: the key's
// ModifyIndex, unless the key was proclaimed. A proclaimed key is one with
// the flags api.LockFlagValue whose value ends with a trailer (tokenMark,
// then a token t with 0 < t < ModifyIndex): its token is t and its value
// what comes before the trailer. Every acquisition, ours and api.Lock's,
// writes a whole new value, so a trailer never outlives its incarnation.
func held(p *api.KVPair) ([]byte, uint64) {
	if p.Flags != api.LockFlagValue {
		return p.Value, p.ModifyIndex
	}
	i := bytes.LastIndex(p.Value, []byte(tokenMark))
	if i < 0 {
		return p.Value, p.ModifyIndex
	}
	digits := p.Value[i+len(tokenMark):]
	t, err := strconv.ParseUint(string(digits), 10, 64)
	if err != nil || len(digits) == 0 || digits[0] == '0' || t >= p.ModifyIndex {
		return p.Value, p.ModifyIndex
	}
	return p.Value[:i:i], t
}

// tokenOf returns the token of a leader key (see held).
func tokenOf(p *api.KVPair) uint64 {
	_, t := held(p)
	return t
}

// withToken returns value with the trailer that keeps token (see held).
func withToken(value []byte, token uint64) []byte {
	v := make([]byte, 0, len(value)+len(tokenMark)+20)
	v = append(append(v, value...), tokenMark...)
	return strconv.AppendUint(v, token, 10)
}

// nextIndex returns the WaitIndex for the blocking query after one that
// was sent with prev and answered with last, by Consul's rules for
// blocking queries: an index that went backwards restarts from 0 (a
// non-blocking read), and an index of 0, which Consul should never return,
// is treated as 1 so that the next query blocks.
func nextIndex(prev, last uint64) uint64 {
	switch {
	case last < prev:
		return 0
	case last == 0:
		return 1
	}
	return last
}
