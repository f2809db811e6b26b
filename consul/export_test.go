package consul

import (
	"context"

	"github.com/leasehold/leasehold/backends"
	idriver "github.com/leasehold/leasehold/internal/driver"
)

// Driver is the driver a Store from New holds, for the package's
// external tests.
type Driver = backends.Driver

// DriverOf returns the driver of a Store New returned.
func DriverOf(s *backends.Store) Driver { return idriver.Of(s).(Driver) }

// AwaitKey runs the blocking queries of s's WatchSet on known's key, as
// a request served on its own key does, and returns the client's error
// as it came, for the package's external tests.
func AwaitKey(ctx context.Context, s Driver, known backends.Record) (backends.Record, error) {
	return s.(*store).awaitKey(ctx, known)
}

// KeyOf returns the KV key of election's leader key in s, for the
// package's external tests.
func KeyOf(s Driver, election string) string { return s.(*store).key(election) }

// QueueKeyOf returns the KV key of session id's queue entry in election.
func QueueKeyOf(s Driver, election, id string) string {
	return s.(*store).queuePrefix(election) + id
}

// RosterKeyOf returns the KV key of session id's roster record in
// election.
func RosterKeyOf(s Driver, election, id string) string {
	return s.(*store).rosterPrefix(election) + id
}
