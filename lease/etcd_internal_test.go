package lease

import (
	"context"
	"testing"
	"time"

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
	return storeOn(t, cli), cli
}

// storeOn returns an etcd store on cli, which t's cleanup closes.
func storeOn(t *testing.T, cli *clientv3.Client) *backends.Store {
	t.Helper()
	t.Cleanup(func() { _ = cli.Close() })
	store, err := etcd.New(cli, etcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return store
}

// wrappedSessions is a driver whose sessions wrap makes, for tests that
// change one call of a session.
type wrappedSessions struct {
	backends.Driver
	wrap func(backends.Session) backends.Session
}

func (w wrappedSessions) NewSession(ctx context.Context, ttl time.Duration) (backends.Session, error) {
	s, err := w.Driver.NewSession(ctx, ttl)
	if err != nil {
		return nil, err
	}
	return w.wrap(s), nil
}

// embeddedDriver returns the driver of an embeddedStore, for tests that
// wrap it to change one call.
func embeddedDriver(t *testing.T) backends.Driver {
	t.Helper()
	return driver.Of(embeddedStore(t))
}
