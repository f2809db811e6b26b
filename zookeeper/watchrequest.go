package zookeeper

import "github.com/leasehold/leasehold/backends"

// Wait implements backends.WatchSet: it takes req by its kind.
func (w *watchSet) Wait(req backends.WatchRequest) {
	switch req.Kind {
	case backends.WatchKey:
		w.waitKey(req.Tag, req.Known)
	case backends.WatchEntry:
		w.waitGone(req.Tag, req.Known)
	case backends.WatchRoster:
		w.waitRoster(req.Tag, req.Known.Election, req.Digest, req.Known.Revision)
	}
}

// Stop implements backends.WatchSet.
func (w *watchSet) Stop(election string, kind backends.WatchKind) {
	if kind == backends.WatchRoster {
		w.stopRoster(election)
		return
	}
	w.stopKey(election)
}
