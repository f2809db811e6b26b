package zookeeper

import "sync/atomic"

// testHook is a function tests set to watch one step of the Store. It is
// set and called atomically: the Store's goroutines can outlive the test
// that set it, and still run while the next test sets its own.
type testHook[T any] struct{ f atomic.Pointer[func(T)] }

func (h *testHook[T]) call(v T) {
	if f := h.f.Load(); f != nil {
		(*f)(v)
	}
}
