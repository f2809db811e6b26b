package consul

// KeyOf returns the KV key of election's leader key in s, for the
// package's external tests.
func KeyOf(s *Store, election string) string { return s.driver.(*store).key(election) }

// QueueKeyOf returns the KV key of session id's queue entry in election.
func QueueKeyOf(s *Store, election, id string) string {
	return s.driver.(*store).queuePrefix(election) + id
}

// RosterKeyOf returns the KV key of session id's roster record in
// election.
func RosterKeyOf(s *Store, election, id string) string {
	return s.driver.(*store).rosterPrefix(election) + id
}
