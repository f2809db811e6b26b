package main

import "time"

// restartBackoff paces --on-exit restart, as systemd's and supervisord's
// users expect: a CMD that keeps failing at once is restarted after
// first, then twice the last delay each time, up to limit; a run that
// stayed up at least reset starts over at first. The key stays held while
// run waits.
type restartBackoff struct {
	first, limit, reset time.Duration
	last                time.Duration // the last delay; 0 before the first
}

// defaultRestart is the backoff of every run (tests change it).
var defaultRestart = restartBackoff{first: 100 * time.Millisecond, limit: 30 * time.Second, reset: 10 * time.Second}

// next returns the delay before the restart that follows a run that was up
// for up.
func (b *restartBackoff) next(up time.Duration) time.Duration {
	if b.last == 0 || up >= b.reset {
		b.last = b.first
	} else {
		b.last = min(2*b.last, b.limit)
	}
	return b.last
}
