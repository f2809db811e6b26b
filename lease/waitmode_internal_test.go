package lease

import (
	"errors"
	"strings"
	"testing"

	"github.com/leasehold/leasehold/backends"
)

// keyOnly is a store without a queue: only its name and its type are
// looked at.
type keyOnly struct{ backends.Driver }

func (keyOnly) Name() string { return "keyonly" }

// withQueue is a store with a queue.
type withQueue struct {
	keyOnly
	backends.Queuer
}

// TestWaitMode: WaitAuto resolves to the queue where the store has one and
// to key mode where it has not; WaitQueue on a store without a queue, and a
// mode that is none of the constants, fail naming Options.Wait.
func TestWaitMode(t *testing.T) {
	for _, tc := range []struct {
		mode  WaitMode
		store backends.Driver
		want  WaitMode
		err   string // "" for none
	}{
		{WaitAuto, withQueue{}, WaitQueue, ""},
		{WaitAuto, keyOnly{}, WaitKey, ""},
		{WaitQueue, withQueue{}, WaitQueue, ""},
		{WaitQueue, keyOnly{}, 0, "Options.Wait queue: the keyonly store does not implement backends.Queuer"},
		{WaitKey, withQueue{}, WaitKey, ""},
		{WaitKey, keyOnly{}, WaitKey, ""},
		{WaitKey + 1, withQueue{}, 0, "Options.Wait WaitMode(3) must be WaitAuto, WaitQueue or WaitKey"},
		{-1, keyOnly{}, 0, "Options.Wait WaitMode(-1) must be"},
	} {
		got, q, err := waitMode(tc.mode, tc.store)
		switch {
		case tc.err != "" && (!errors.Is(err, ErrInvalidOption) || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("waitMode(%v, %s): error %v, want ErrInvalidOption with %q", tc.mode, tc.store.Name(), err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want || (q != nil) != (got == WaitQueue)):
			t.Errorf("waitMode(%v, %s) = %v, queue %v, %v; want %v", tc.mode, tc.store.Name(), got, q != nil, err, tc.want)
		}
	}
}
