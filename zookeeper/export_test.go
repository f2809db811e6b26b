package zookeeper

import (
	"github.com/leasehold/leasehold/backends"
	idriver "github.com/leasehold/leasehold/internal/driver"
)

// storeOf returns the adapter's own driver of a Store New returned.
func storeOf(s *backends.Store) *store { return idriver.Of(s).(*store) }
