package core

import (
	"fmt"
	"strings"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// Kind says what an Action asks the driver to do or report.
type Kind int

// The actions. I/O actions carry what the call needs; the driver reports the
// outcome back through the matching Machine method, quoting Op or Epoch.
const (
	// CreateSession: open a session with TTL (Config.TTL); report with
	// SessionCreated or SessionFailed quoting Epoch.
	CreateSession Kind = iota
	// Renew: send one keep-alive on session Epoch; report with Renewed or
	// RenewFailed.
	Renew
	// CloseSession: close session Epoch, which the machine gave up;
	// report with SessionClosed. A failure is retried, for a bounded
	// time (see closing.go); Closing says when the driver may forget
	// the session.
	CloseSession
	// Create: create Election's key on session Epoch; report with Created.
	Create
	// Get: read Election's key; report with Observed.
	Get
	// Wait: wait for Election's key to differ from Record; report with
	// Observed.
	Wait
	// Delete: delete Election's key if it holds Token; report with
	// Deleted.
	Delete
	// Elected: the campaign for Election won; Record is the leader key,
	// bound to session Epoch.
	Elected
	// Lost: the leadership of Election ended; Err says why.
	Lost
	// Released: the campaign or resign of Election finished and the
	// machine forgot it; Err is nil or says why the campaign stopped, or
	// why a resign could not delete the key (a permanent error). At the
	// end of a handover, Err is nil only if a write of the leader handed
	// the key to the target; else it wraps ErrNotHandedOver and why.
	Released
	// SessionDenied: a session could not be made for a permanent reason
	// (Err wraps backends.ErrPermission); the campaigns that needed it
	// were released with it, and those waiting for a session should fail
	// with it too. The session is no longer kept (see WantSession).
	SessionDenied
	// Yield: the leadership of Election ends with ErrHandover (a handover
	// began: HandOver, a preemption or an outside request). The key stays
	// held and its session renewed until Resign(Election) is called or
	// Config.YieldTimeout passes; then comes Pass. No report. Lost
	// may still follow (the session or key was lost meanwhile); else
	// Released does.
	Yield
	// Publish: rewrite this candidate's record in Election's roster with
	// Damped; best effort, no report. It comes when a campaign starts
	// damped and when its damping ends; a record written later (the
	// roster Join) should show DampedUntil.
	Publish
	// Enqueue: add session Epoch's entry to Election's queue
	// (backends.Session.Enqueue, idempotent per session); report with
	// Enqueued. Queue mode only (Config.Queue), like the four kinds
	// after it. Cleanup marks the Enqueue of a cleanup (see Dequeue),
	// not the election's own call: it supersedes nothing the election
	// has in flight.
	Enqueue
	// Ahead: find the entry of Election's queue just ahead of Token, the
	// election's entry (backends.Driver.Ahead); report with AheadFound.
	// With To set, Token is the entry of session To, a handover's target,
	// whose place is checked before a Pass, wherever this
	// elector waits; a store with no queue reports none ahead.
	Ahead
	// WaitGone: wait until Record, the entry ahead, is gone (a
	// WatchEntry request in the WatchSet); report with Gone, or with
	// Woken if a pass wakes the line.
	WaitGone
	// Dequeue: delete Record, an entry of Election's queue made on this
	// elector's session (backends.Driver.Dequeue); report with Dequeued,
	// quoting Op. It is a cleanup, which outlives the election: the
	// election left the line, or an Enqueue came back after it did.
	Dequeue
	// Queued: Election's entry Record was made on the live session; the
	// driver's candidate record carries its Token. No report.
	Queued
	// Pass: hand Election's key, if it still holds Token on session
	// Epoch, to session To, whose identity is ToID (backends.End with a
	// target); report with Passed.
	Pass
	// Join: write this candidate's record in Election's roster, bound to
	// session Epoch, showing Damped, Joined and, in Queue, the token of
	// the campaign's queue entry (0: none); report with Joined.
	// Config.Roster only, like Leave.
	Join
	// Leave: delete this candidate's record in Election's roster, bound
	// to session Epoch; report with Left.
	Leave
	// Sweep: with Token 0, read Election's key; report the record read
	// with Swept. With Token, delete the key if it holds Token on session
	// Epoch (backends.End); report with Swept. For a key bound to this
	// session with no campaign for it: passed after its campaign ended
	// (Config.Sweep; see sweep.go), or made by a Create of unknown outcome
	// that landed late (see late.go).
	Sweep
)

var kindNames = [...]string{"create-session", "renew", "close-session", "create", "get", "wait", "delete", "elected", "lost", "released", "session-denied",
	"yield", "publish", "enqueue", "ahead", "wait-gone", "dequeue", "queued", "pass", "join", "leave", "sweep"}

func (k Kind) String() string { return kindNames[k] }

// Action is one output of the Machine. Kind says which fields are set.
type Action struct {
	Kind     Kind
	Election string
	Op       uint64
	Epoch    uint64
	Token    uint64
	// Record is the record a Wait, WaitGone, Dequeue, Queued or Elected
	// is about.
	Record backends.Record
	Err    error
	// TTL is the session TTL a CreateSession asks of the store.
	TTL time.Duration
	// To is the target session of a Pass, or of the Ahead that checks
	// its place before a Pass.
	To string
	// ToID is the target's identity, on a Pass.
	ToID string
	// Queue is, on a Pass, the target's queue entry token as its record
	// gives it (0: it waits in no queue): the pass checks it and the store
	// keeps it (backends.Target.Entry).
	Queue uint64
	// Mine is, on a WaitGone, the waiter's own queue entry, behind
	// Record (backends.WatchRequest.Mine).
	Mine backends.Record
	// Damped is what a Publish or a Join puts in the candidate record.
	Damped bool
	// Joined is, on a Join, when the campaign first joined, for display.
	Joined time.Time
	// Leave, on a Delete or Pass, deletes this candidate's record in
	// Election's roster in the same write (Config.FoldLeave); the driver
	// reports the outcome with Left too, before Deleted or Passed.
	Leave bool
	// Cause, on a Yield, says why: CauseHandover, CausePreempt or
	// CauseRequest. On the first action of a handover with no Yield, a
	// resign's (an Ahead or a Pass), it is CauseResign.
	Cause string
	// Direct, on a Wait, asks to wait on the key itself, never behind
	// others in a queue (WaitQueue): the campaign will not create the key
	// when it goes (Config.NoLead, or damped).
	Direct bool
	// Cleanup, on an Enqueue, marks a cleanup's call (see Enqueue).
	Cleanup bool
	// Urgent, on a Create or a Get, marks a call that completes an
	// acquisition: a Create after the key was seen free, or a Get that
	// confirms a key passed to this candidate. The driver runs it before
	// the other calls waiting for a slot (a campaign's first Create).
	Urgent bool
}

// String renders the action for logs and the scripted tests.
func (a Action) String() string {
	var b strings.Builder
	b.WriteString(a.Kind.String())
	if a.Election != "" {
		fmt.Fprintf(&b, " %s", a.Election)
	}
	switch a.Kind {
	case CreateSession, Renew, CloseSession:
		fmt.Fprintf(&b, " epoch=%d", a.Epoch)
	case Create:
		fmt.Fprintf(&b, " op=%d epoch=%d", a.Op, a.Epoch)
		if a.Urgent {
			b.WriteString(" urgent")
		}
	case Get:
		fmt.Fprintf(&b, " op=%d", a.Op)
		if a.Urgent {
			b.WriteString(" urgent")
		}
	case Wait:
		fmt.Fprintf(&b, " op=%d rev=%d token=%d", a.Op, a.Record.Revision, a.Record.Token)
		if a.Direct {
			b.WriteString(" direct")
		}
	case Delete:
		fmt.Fprintf(&b, " op=%d token=%d", a.Op, a.Token)
	case Elected:
		fmt.Fprintf(&b, " token=%d epoch=%d", a.Record.Token, a.Epoch)
	case Pass:
		fmt.Fprintf(&b, " op=%d epoch=%d token=%d to=%s id=%s", a.Op, a.Epoch, a.Token, a.To, a.ToID)
		if a.Queue != 0 {
			fmt.Fprintf(&b, " queue=%d", a.Queue)
		}
	case Publish:
		fmt.Fprintf(&b, " damped=%t", a.Damped)
	case Enqueue:
		fmt.Fprintf(&b, " op=%d epoch=%d", a.Op, a.Epoch)
		if a.Cleanup {
			b.WriteString(" cleanup")
		}
	case Ahead:
		fmt.Fprintf(&b, " op=%d token=%d", a.Op, a.Token)
		if a.To != "" {
			fmt.Fprintf(&b, " to=%s", a.To)
		}
	case WaitGone, Dequeue:
		fmt.Fprintf(&b, " op=%d entry=%d", a.Op, a.Record.Token)
	case Queued:
		fmt.Fprintf(&b, " entry=%d", a.Record.Token)
	case Join:
		fmt.Fprintf(&b, " op=%d epoch=%d queue=%d damped=%t", a.Op, a.Epoch, a.Queue, a.Damped)
	case Leave:
		fmt.Fprintf(&b, " op=%d epoch=%d", a.Op, a.Epoch)
	case Sweep:
		fmt.Fprintf(&b, " op=%d epoch=%d token=%d", a.Op, a.Epoch, a.Token)
	}
	if a.Leave {
		b.WriteString(" leave")
	}
	if a.Cause != "" && (a.Kind == Pass || a.Kind == Delete || a.Kind == Ahead) {
		fmt.Fprintf(&b, " cause=%s", a.Cause)
	}
	if a.Err != nil {
		fmt.Fprintf(&b, " err=%q", a.Err.Error())
	}
	return b.String()
}
