package lease

import (
	"errors"
	"strings"
	"testing"
)

// TestWaitMode: WaitAuto resolves to the queue, which every store keeps;
// a mode that is none of the constants fails naming Options.Wait.
func TestWaitMode(t *testing.T) {
	for _, tc := range []struct {
		mode WaitMode
		want WaitMode
		err  string // "" for none
	}{
		{WaitAuto, WaitQueue, ""},
		{WaitQueue, WaitQueue, ""},
		{WaitKey, WaitKey, ""},
		{WaitKey + 1, 0, "Options.Wait WaitMode(3) must be WaitAuto, WaitQueue or WaitKey"},
		{-1, 0, "Options.Wait WaitMode(-1) must be"},
	} {
		got, err := waitMode(tc.mode)
		switch {
		case tc.err != "" && (!errors.Is(err, ErrInvalidOption) || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("waitMode(%v): error %v, want ErrInvalidOption with %q", tc.mode, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("waitMode(%v) = %v, %v; want %v", tc.mode, got, err, tc.want)
		}
	}
}
