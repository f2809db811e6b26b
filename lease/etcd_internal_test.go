package lease

import (
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/internal/driver"
	"github.com/leasehold/leasehold/internal/embedetcd"
)

// embeddedStore returns an etcd store on an embedded server that t's
// cleanup stops.
func embeddedStore(t *testing.T) *backends.Store {
	t.Helper()
	store, _ := embeddedStoreClient(t)
	return store
}

// embeddedStoreClient is embeddedStore, with the store's client.
func embeddedStoreClient(t *testing.T) (*backends.Store, *clientv3.Client) {
	t.Helper()
	srv, err := embedetcd.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	cli, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	store, err := etcd.New(cli, etcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return store, cli
}

// etcdDriver is what the etcd adapter's driver implements, for tests that
// wrap it to change one call.
type etcdDriver interface {
	backends.Driver
	backends.Queuer
	backends.Roster
	backends.Proclaimer
	backends.GuardedWriter
	backends.Watcher
}

// embeddedDriver returns the driver of an embeddedStore.
func embeddedDriver(t *testing.T) etcdDriver {
	t.Helper()
	return driver.Of(embeddedStore(t)).(etcdDriver)
}
