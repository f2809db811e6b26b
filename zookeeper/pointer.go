package zookeeper

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// freeName is the child of an election's pointer node that exists while,
// and only while, the pointer is empty (see the package doc, Nodes and
// tokens): a Create on a free election deletes it in the multi that
// points the pointer at its node, so it needs no read first, and a
// release creates it in the multi that empties the pointer.
const freeName = "~free"

// errNotHeld: the pointer does not name the session's node at the token.
var errNotHeld = errors.New("the pointer does not name this session's node at this token")

// pointer is the data of an election's pointer node: the holder's session
// (owner), the path of its lead node (its queue entry, lead entry or
// roster record), the token a Proclaim carried over (0: the node's mzxid
// is the token) and the holder's value. An empty pointer has no owner.
type pointer struct {
	owner string
	lead  string
	token uint64
	value []byte
}

// encode renders p as the pointer node's data: owner, lead and token on a
// line each, then the value; nothing for an empty pointer. Session IDs
// and paths hold no newline (validatePath refuses control characters).
func (p pointer) encode() []byte {
	if p.owner == "" {
		return nil
	}
	head := p.owner + "\n" + p.lead + "\n"
	if p.token != 0 {
		head += strconv.FormatUint(p.token, 10)
	}
	return append([]byte(head+"\n"), p.value...)
}

// parsePointer parses a pointer node's data; empty data is the empty
// pointer.
func parsePointer(data []byte) (pointer, error) {
	if len(data) == 0 {
		return pointer{}, nil
	}
	parts := bytes.SplitN(data, []byte("\n"), 4)
	if len(parts) != 4 || len(parts[0]) == 0 || len(parts[1]) == 0 {
		return pointer{}, fmt.Errorf("pointer data %.40q is not owner, lead node, token and value", data)
	}
	p := pointer{owner: string(parts[0]), lead: string(parts[1]), value: parts[3]}
	if len(parts[2]) > 0 {
		t, err := strconv.ParseUint(string(parts[2]), 10, 64)
		if err != nil {
			return pointer{}, fmt.Errorf("pointer token %q: %w", parts[2], err)
		}
		p.token = t
	}
	return p, nil
}

// pstate is a pointer node as read or written: its pointer and its Stat
// (nil: no pointer node yet).
type pstate struct {
	p  pointer
	st *zk.Stat
}

// token is the fencing token of st's holder: the carried one, or the
// mzxid of the write that pointed the pointer at its node.
func (ps pstate) token() uint64 {
	if ps.p.token != 0 {
		return ps.p.token
	}
	return uint64(ps.st.Mzxid)
}

// led reports whether the pointer names a holder.
func (ps pstate) led() bool { return ps.st != nil && ps.p.owner != "" }

// holds reports whether the pointer names owner's node ("": anyone's)
// at token.
func (ps pstate) holds(owner string, token uint64) bool {
	return ps.led() && (owner == "" || ps.p.owner == owner) && ps.token() == token && token != 0
}

// record returns the key's state that ps shows, read on l, with the lead
// node present (alive) or not: a pointer naming a node that is gone (its
// session ended) is an absent key.
func (ps pstate) record(election string, alive bool, l *link) backends.Record {
	l.saw(ps.st)
	switch {
	case ps.st == nil || (ps.led() && !alive):
		return backends.Record{Election: election, Revision: l.position()}
	case !ps.led():
		return backends.Record{Election: election, Revision: uint64(ps.st.Mzxid)}
	}
	return backends.Record{Election: election, Value: ps.p.value, Token: ps.token(),
		Owner: ps.p.owner, Revision: uint64(ps.st.Mzxid)}
}

// getPointer reads the pointer node at path on l, with a watch if asked
// for; a missing node is the zero pstate (and, with watch, an exists
// watch for its create).
func getPointer(l *link, path string, watch bool) (pstate, error) {
	var data []byte
	var st *zk.Stat
	var err error
	if watch {
		data, st, _, err = l.conn.GetW(path)
	} else {
		data, st, err = l.conn.Get(path)
	}
	if errors.Is(err, zk.ErrNoNode) && watch {
		if ok, _, _, err := l.conn.ExistsW(path); err != nil || !ok {
			return pstate{}, err
		}
		return getPointer(l, path, false) // created since: the watch covers what follows
	}
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return pstate{}, nil
	case err != nil:
		return pstate{}, err
	}
	p, err := parsePointer(data)
	return pstate{p: p, st: st}, err
}

// readKey reads the key's state on l: the pointer node, after a sync,
// then, if it names a node, whether that node exists.
func (s *store) readKey(l *link, election, path string) (backends.Record, pstate, error) {
	return s.readKeyAfter(l, election, path, true)
}

// readKeyAfter is readKey, with a sync first only if sync is set: a read
// that follows, on l, a write of l that the server answered (even with an
// error: a failed multi is a transaction of the ensemble too) needs none,
// as the server that answered had applied every change committed before
// that write, and l's requests are served in order. A lead node found
// gone is checked against the pointer read again (leadGone).
//
// The lead node that the Store last saw the pointer name is checked at
// the same time as the pointer is read (after the sync, if any), so that
// a key whose holder did not change costs one round trip after the sync,
// not two. Only a node found there, and named by the pointer read, is
// taken: the key was then held at some moment between the two reads, as
// every write that points the pointer at a node checks or makes that
// node. Otherwise the node the pointer names is checked after the read.
func (s *store) readKeyAfter(l *link, election, path string, sync bool) (backends.Record, pstate, error) {
	kr, err := syncedIf(l, path, sync, func() (keyRead, error) { return s.pointerAndLead(l, election, path) })
	if err != nil {
		return backends.Record{}, pstate{}, err
	}
	ps, guess := kr.ps, kr.guess
	if !ps.led() {
		return ps.record(election, false, l), ps, nil
	}
	alive := guess.lead == ps.p.lead && guess.alive
	testHookLeadGuessed.call(alive)
	if !alive {
		testHookPointerRead.call(struct{}{})
		alive, _, err = l.conn.Exists(ps.p.lead)
	}
	switch {
	case err != nil:
		return backends.Record{}, pstate{}, err
	case alive:
		s.ptrs.live(election, ps)
		return ps.record(election, true, l), ps, nil
	}
	return s.leadGone(l, election, path, ps)
}

// testHookPointerRead runs between a key read's pointer read and its
// check of the lead node, when that check follows the read.
var testHookPointerRead testHook[struct{}]

// testHookLeadGuessed runs after a key read's pointer read that named a
// lead node, telling whether the check made at the same time found it.
var testHookLeadGuessed testHook[bool]

// keyRead is a read of the pointer node and the outcome of a check, made
// at the same time, of a lead node: the node's path ("": none checked)
// and whether it was found (a failed check counts as not found).
type keyRead struct {
	ps    pstate
	guess struct {
		lead  string
		alive bool
	}
}

// pointerAndLead reads the pointer node at path on l, with no sync, and
// records it (pointers.saw); at the same time it checks the lead node of
// the pointer as the Store last saw it, if that named one.
func (s *store) pointerAndLead(l *link, election, path string) (keyRead, error) {
	var kr keyRead
	var err error
	known, ok := s.ptrs.get(election)
	if !ok || !known.led() {
		kr.ps, err = s.pointerOn(l, election, path, false)
		return kr, err
	}
	kr.guess.lead = known.p.lead
	done := make(chan struct{})
	go func() {
		defer close(done)
		kr.guess.alive, _, _ = l.conn.Exists(kr.guess.lead)
	}()
	kr.ps, err = s.pointerOn(l, election, path, false)
	<-done
	return kr, err
}

// syncedPointer reads the pointer node at path on l after a sync (see
// synced) and, unless election is "", records it (pointers.saw).
func (s *store) syncedPointer(l *link, election, path string) (pstate, error) {
	return s.pointerOn(l, election, path, true)
}

// pointerOn is syncedPointer, with the sync only if sync is set.
func (s *store) pointerOn(l *link, election, path string, sync bool) (pstate, error) {
	ps, err := syncedIf(l, path, sync, func() (pstate, error) { return getPointer(l, path, false) })
	if err == nil && election != "" {
		s.ptrs.saw(election, ps)
	}
	return ps, err
}

// heldAt reads the pointer after a sync on l (syncedPointer) and returns
// it if it names a node of owner ("": any) at token; errNotHeld if not.
func (s *store) heldAt(l *link, election, path, owner string, token uint64) (pstate, error) {
	ps, err := s.syncedPointer(l, election, path)
	switch {
	case err != nil:
		return pstate{}, err
	case !ps.holds(owner, token):
		return pstate{}, errNotHeld
	}
	return ps, nil
}

// pointers holds the latest state of each election's pointer node that
// the Store read or wrote, by election: a holder's End and Proclaim guard
// their multi with its version without reading it first. Any state will
// do: a multi at a version the pointer has left fails, and the caller
// reads it then. It keeps what those guards use (see seen), not the
// value nor the whole Stat: at 10,000 held elections that is about 190
// bytes less per election (bench, 2026-11-29). It is safe for concurrent
// use.
type pointers struct {
	mu sync.Mutex
	m  map[string]seen
}

// seen is what pointers keeps of a pointer node's state: its pointer
// without the value, the Stat fields that Create, End and Proclaim read,
// whether its lead node was seen alive at that version, with no deletion
// of it seen since (see live), and whether it is the empty pointer of
// this Store's own release (see freed).
type seen struct {
	owner, lead       string
	token             uint64
	mzxid             int64
	version, children int32
	alive, freed      bool
}

// saw records ps, unless a later version is known; at the version known,
// what was seen of the lead node, and whose release it is, stays.
func (p *pointers) saw(election string, ps pstate) {
	if ps.st == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]seen{}
	}
	if cur, ok := p.m[election]; !ok || cur.version <= ps.st.Version {
		same := ok && cur.version == ps.st.Version
		p.m[election] = seen{owner: ps.p.owner, lead: ps.p.lead, token: ps.p.token,
			mzxid: ps.st.Mzxid, version: ps.st.Version, children: ps.st.NumChildren,
			alive: same && cur.alive, freed: same && cur.freed}
	}
}

// freed records ps, the empty pointer that a release of this Store's
// wrote (End), as such: until a later version is known, a Create reads
// the pointer before it writes (see firstRead).
func (p *pointers) freed(election string, ps pstate) {
	p.saw(election, ps)
	p.mu.Lock()
	defer p.mu.Unlock()
	if cur, ok := p.m[election]; ok && cur.version == ps.st.Version && cur.owner == "" {
		cur.freed = true
		p.m[election] = cur
	}
}

// live records that the lead node of election's pointer at ps's version
// existed: a read found it, or a write that named it checked it. A
// Create by another session then reads the pointer before it writes
// (see create), until deleted or a later version clears it.
func (p *pointers) live(election string, ps pstate) {
	p.saw(election, ps)
	if ps.st == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if cur, ok := p.m[election]; ok && cur.version == ps.st.Version && cur.owner != "" {
		cur.alive = true
		p.m[election] = cur
	}
}

// deleted records that the node at path was deleted: if it is the lead
// node of election's pointer as known, that pointer's holder is gone.
func (p *pointers) deleted(election, path string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if cur, ok := p.m[election]; ok && cur.alive && cur.lead == path {
		cur.alive = false
		p.m[election] = cur
	}
}

// get returns the state known of election's pointer.
// Its pointer has no value: a caller that writes the pointer sets its own.
func (p *pointers) get(election string) (pstate, bool) {
	p.mu.Lock()
	sn, ok := p.m[election]
	p.mu.Unlock()
	if !ok {
		return pstate{}, false
	}
	return pstate{p: pointer{owner: sn.owner, lead: sn.lead, token: sn.token},
		st: &zk.Stat{Mzxid: sn.mzxid, Version: sn.version, NumChildren: sn.children}}, true
}

// firstRead reports whether a Create of owner's on link l reads
// election's pointer before its first multi, and whether that read syncs
// first. It reads, after a sync, if the pointer as known names a lead
// node of another session that was seen alive (see live): a multi would
// fail. It reads if the pointer as known is the empty one of this
// Store's own release (see freed): a waiter on the key heard of that
// release as soon as it committed and took the key at once, so a multi
// sent now would mostly fail; that read syncs only if l's server may
// lack the release (link.has), as otherwise it cannot answer with an
// older state.
func (p *pointers) firstRead(election, owner string, l *link) (read, sync bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	sn, ok := p.m[election]
	switch {
	case !ok:
		return false, false
	case sn.alive && sn.owner != "" && sn.owner != owner:
		return true, true
	case sn.freed:
		return true, !l.has(uint64(sn.mzxid))
	}
	return false, false
}

// multi sends ops as one multi. If an op failed, the error is an opError
// that wraps the op's error and names its path (failedAt); else it is the
// multi's own. ZooKeeper reports the first op that failed, and a runtime
// inconsistency for those after it.
func multi(conn *zk.Conn, ops ...any) ([]zk.MultiResponse, error) {
	res, err := conn.Multi(ops...)
	for i, r := range res {
		if r.Error != nil && i < len(ops) {
			return res, opError{path: opPath(ops[i]), err: r.Error}
		}
	}
	return res, err
}

// multiStat sends ops as one multi (see multi) and returns the stat
// answered to the op at index at (a setData).
func multiStat(conn *zk.Conn, at int, ops ...any) (*zk.Stat, error) {
	res, err := multi(conn, ops...)
	if err != nil {
		return nil, err
	}
	if len(res) <= at || res[at].Stat == nil {
		return nil, fmt.Errorf("the multi answered %d results without a stat", len(res))
	}
	return res[at].Stat, nil
}

// opError is the error of a multi's op that failed, and the op's path.
type opError struct {
	path string
	err  error
}

func (e opError) Error() string { return e.err.Error() }
func (e opError) Unwrap() error { return e.err }

// failedAt returns the path of the multi op whose failure err reports,
// or "" if err is no op's (see multi).
func failedAt(err error) string {
	var oe opError
	if errors.As(err, &oe) {
		return oe.path
	}
	return ""
}

// opPath returns the path a multi op acts on.
func opPath(op any) string {
	switch op := op.(type) {
	case *zk.CheckVersionRequest:
		return op.Path
	case *zk.SetDataRequest:
		return op.Path
	case *zk.DeleteRequest:
		return op.Path
	case *zk.CreateRequest:
		return op.Path
	}
	return ""
}
