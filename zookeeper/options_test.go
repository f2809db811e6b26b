package zookeeper

import (
	"strings"
	"testing"
	"time"
)

// TestOptionErrors: a bad option's error names the option the caller set,
// not a limit derived from it.
func TestOptionErrors(t *testing.T) {
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{TickTime: time.Nanosecond}, "TickTime 1ns must be whole milliseconds, at least 1ms"},
		{Options{TickTime: 1500 * time.Microsecond}, "TickTime 1.5ms must be whole milliseconds"},
		{Options{TickTime: -time.Second}, "TickTime -1s must be"},
		{Options{MinTTL: 5 * time.Second, MaxTTL: 4 * time.Second}, "MinTTL 5s and MaxTTL 4s"},
	} {
		err := c.opts.withDefaults().validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want an error containing %q", c.opts, err, c.want)
		}
	}
	if err := (Options{TickTime: 200 * time.Millisecond}).withDefaults().validate(); err != nil {
		t.Errorf("TickTime 200ms: %v", err)
	}
}
