// Package hook is where package backends leaves the accessor of a Store's
// Driver for package driver, which imports backends and so cannot be
// imported by it. Use package driver, not this one.
package hook

// Driver returns the backends.Driver of a *backends.Store (both typed as
// any, as this package cannot name them). Package backends sets it in
// its init.
var Driver func(store any) any
