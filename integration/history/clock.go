package history

import (
	"time"

	"golang.org/x/sys/unix"
)

// Time is a reading of CLOCK_MONOTONIC in nanoseconds. Readings taken by
// different processes on one machine are comparable; readings from
// different machines are not.
type Time int64

// Now reads CLOCK_MONOTONIC, the clock Go's own monotonic readings use.
func Now() Time {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic("history: clock_gettime(CLOCK_MONOTONIC): " + err.Error()) // never fails on Linux
	}
	return Time(ts.Nano())
}

// Sub returns t − u as a duration.
func (t Time) Sub(u Time) time.Duration { return time.Duration(t - u) }

// Add returns t + d.
func (t Time) Add(d time.Duration) Time { return t + Time(d) }
