package lease

import (
	"log/slog"

	"github.com/leasehold/leasehold/backends"
)

// trace logs, at debug level, a watch's answer: the core's op (or the
// WatchSet's tag for one dropped), the key's state or the entry it
// reports, and its error. With the actions that step logs at that level,
// it tells why a campaign did what it did. Disabled, it costs a check.
func (e *LeaseElector) trace(msg, election string, op uint64, rec backends.Record, err error) {
	if !e.log.Enabled(e.ctx, slog.LevelDebug) {
		return
	}
	e.log.Debug(msg, "election", election, "op", op, "owner", rec.Owner, "token", rec.Token,
		"rev", rec.Revision, "err", err)
}
