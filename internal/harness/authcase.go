package harness

import (
	"context"
	"testing"

	"github.com/leasehold/leasehold/backends"
)

// AuthCase is a client short of the rights the elector needs, as an
// auth harness offers it to the auth suite (leasetest.AuthCase).
type AuthCase struct {
	// Name names the case in test names, e.g. "read-only".
	Name string
	// Store returns a Store for the case, on a connection of its own
	// closed when t ends, and a function that writes value at election's
	// leader key through that connection's own client, as a plain write
	// (not through the adapter); it returns an error wrapping
	// backends.ErrPermission if the store refused it for want of rights.
	Store func(t testing.TB) (store *backends.Store, overwrite func(ctx context.Context, election string, value []byte) error)
	// KeyRead: the case may read the leader keys (Leader and Observe work).
	KeyRead bool
	// KeyWrite: the case may write the leader keys; it lacks another right
	// (say, Consul's session:write), so only its campaigns are refused and
	// the attacks on the holder's key are not tried.
	KeyWrite bool
}
