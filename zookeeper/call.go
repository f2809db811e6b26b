package zookeeper

import "context"

// call runs fn on a goroutine the Store owns and returns when fn does or
// when ctx ends, whichever is first; if ctx ends first the caller must not
// use what fn produces. go-zookeeper's calls take no context: one whose
// caller gave up finishes on its own when the server answers, when
// go-zookeeper gives up on the TCP connection, or when the connection is
// closed (Session.Close, Store.Close).
func (s *store) call(ctx context.Context, fn func()) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	done := make(chan struct{})
	if !s.spawn(func() { defer close(done); fn() }) {
		return errStoreClosed
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		select {
		case <-done:
			return nil
		default:
			return ctx.Err()
		}
	}
}

// spawn runs fn on a goroutine that Close waits for. It reports false,
// without running fn, once the Store is closed.
func (s *store) spawn(fn func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.goLocked(fn)
	return true
}

// goLocked is spawn with s.mu held and the Store known to be open.
func (s *store) goLocked(fn func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		fn()
	}()
}

// callErr is call for a function that returns an error.
func (s *store) callErr(ctx context.Context, fn func() error) error {
	_, err := callFor(s, ctx, func() (struct{}, error) { return struct{}{}, fn() })
	return err
}

// callFor is call for a function with results, which it returns once fn
// has; if ctx ends first it returns ctx's error and zero results.
func callFor[T any](s *store, ctx context.Context, fn func() (T, error)) (T, error) {
	var v T
	var err error
	if cerr := s.call(ctx, func() { v, err = fn() }); cerr != nil {
		var zero T
		return zero, cerr
	}
	return v, err
}
