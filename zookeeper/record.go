package zookeeper

import "strconv"

// sessionID renders a ZooKeeper session ID as a Session ID: lower-case
// hex, as ZooKeeper's logs and four-letter words print it.
func sessionID(id int64) string { return strconv.FormatUint(uint64(id), 16) }
