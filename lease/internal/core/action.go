package core

import (
	"fmt"
	"strings"

	"github.com/leasehold/leasehold/backends"
)

// Kind says what an Action asks the driver to do or report.
type Kind int

// The actions. I/O actions carry what the call needs; the driver reports the
// outcome back through the matching Machine method, quoting Op or Epoch.
const (
	// CreateSession: open a session with Config.TTL; report with
	// SessionCreated or SessionFailed quoting Epoch.
	CreateSession Kind = iota
	// Renew: send one keep-alive on session Epoch; report with Renewed or
	// RenewFailed.
	Renew
	// CloseSession: close session Epoch, best effort; no report.
	CloseSession
	// Create: create Election's key on session Epoch; report with Created.
	Create
	// Get: read Election's key; report with Observed.
	Get
	// Wait: wait for Election's key to differ from Record; report with
	// Observed.
	Wait
	// Delete: delete Election's key if it holds Token; report with Deleted.
	Delete
	// Elected: the campaign for Election won; Record is the leader key,
	// bound to session Epoch.
	Elected
	// Lost: the leadership of Election ended; Err says why.
	Lost
	// Released: the campaign or resign of Election finished and the
	// machine forgot it; Err is nil or says why the campaign stopped, or
	// why a resign could not delete the key (a permanent error).
	Released
	// SessionDenied: a session could not be made for a permanent reason
	// (Err wraps backends.ErrPermission); the campaigns that needed it
	// were released with it, and those waiting for a session should fail
	// with it too. The session is no longer kept (see WantSession).
	SessionDenied
)

var kindNames = [...]string{"create-session", "renew", "close-session", "create", "get", "wait", "delete", "elected", "lost", "released", "session-denied"}

func (k Kind) String() string { return kindNames[k] }

// Action is one output of the Machine.
type Action struct {
	Kind     Kind
	Election string
	Op       uint64
	Epoch    uint64
	Token    uint64
	Record   backends.Record
	Err      error
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
	case Get:
		fmt.Fprintf(&b, " op=%d", a.Op)
	case Wait:
		fmt.Fprintf(&b, " op=%d rev=%d token=%d", a.Op, a.Record.Revision, a.Record.Token)
	case Delete:
		fmt.Fprintf(&b, " op=%d token=%d", a.Op, a.Token)
	case Elected:
		fmt.Fprintf(&b, " token=%d epoch=%d", a.Record.Token, a.Epoch)
	}
	if a.Err != nil {
		fmt.Fprintf(&b, " err=%q", a.Err.Error())
	}
	return b.String()
}
