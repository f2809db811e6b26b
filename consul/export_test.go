package consul

// KeyOf returns the KV key of election's leader key in s, for the
// package's external tests.
func KeyOf(s *Store, election string) string { return s.driver.(*store).key(election) }
