// Package embedded has a Store whose methods come from an embedded
// unexported struct pointer.
package embedded

// Store wraps store.
type Store struct{ *store }

type store struct{}

// Get is promoted to Store.
func (s *store) Get() int { return 0 }
