package zookeeper

import (
	"cmp"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// recordReads bounds the reads atOnce keeps in flight at once (a roster
// listing's records, a WatchSet's batch).
const recordReads = 32

// readRecords reads the nodes at rpath + "/" + each of children
// (readRecord) with up to recordReads reads in flight on conn at once: the
// connection carries them in order and the server answers them in order,
// so the listing costs about one round trip, not one per child, and each
// read still follows every request sent before it on conn (such as a
// sync). The records are in children's order; the error is the first
// child's error, if any failed.
func readRecords(conn *zk.Conn, election, rpath string, children []string) ([]backends.Record, error) {
	recs := make([]backends.Record, len(children))
	errs := make([]error, len(children))
	atOnce(len(children), func(i int) {
		recs[i], errs[i] = readRecord(conn, election, rpath+"/"+children[i])
	})
	if err := cmp.Or(errs...); err != nil { // the first that failed
		return nil, err
	}
	return recs, nil
}

// atOnce calls f(i) for every i in [0, n), each in a goroutine of its
// own, with up to recordReads calls running at once, and returns when all
// have returned; a single call runs on the caller's goroutine (a hand-off
// wakes one request, whose read then costs no goroutine switch). Reads
// sent so on one connection go out together, each still behind every
// request sent on it before.
func atOnce(n int, f func(i int)) {
	if n == 1 {
		f(0)
		return
	}
	slots := make(chan struct{}, recordReads)
	var wg sync.WaitGroup
	for i := range n {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			f(i)
		}()
	}
	wg.Wait()
}
