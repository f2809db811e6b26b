package lease

import (
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/internal/embedetcd"
)

// embeddedStore returns an etcd store on an embedded server that t's
// cleanup stops.
func embeddedStore(t *testing.T) *etcd.Store {
	t.Helper()
	store, _ := embeddedStoreClient(t)
	return store
}

// embeddedStoreClient is embeddedStore, with the store's client.
func embeddedStoreClient(t *testing.T) (*etcd.Store, *clientv3.Client) {
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
