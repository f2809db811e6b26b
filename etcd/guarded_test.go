package etcd_test

import (
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/internal/keys"
)

// TestGuardedPutLands: an accepted GuardedPut is in etcd at keys.Data, and a
// refused one leaves the value as it was.
func TestGuardedPutLands(t *testing.T) {
	c := harness.Dial(t)
	st, err := etcd.New(c, etcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := etcd.DriverOf(st)
	ctx := backendtest.Context(t, 10*time.Second)
	ss, err := s.NewSession(ctx, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close(ctx)
	el := backendtest.Election(t)
	rec, err := ss.Create(ctx, el, []byte("alice"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.GuardedPut(ctx, backends.Guarded{Election: el, Token: rec.Token, Key: "lands", Value: []byte("yes")}); err != nil {
		t.Fatal(err)
	}
	if err := s.GuardedPut(ctx, backends.Guarded{Election: el, Token: rec.Token + 1, Key: "lands", Value: []byte("no")}); err == nil {
		t.Fatal("GuardedPut with another token succeeded")
	}
	resp, err := c.Get(ctx, keys.Data(etcd.DefaultPrefix, "lands"))
	if err != nil || len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "yes" {
		t.Fatalf("etcd holds %v, %v at %s; want the accepted value \"yes\"", resp, err, keys.Data(etcd.DefaultPrefix, "lands"))
	}
}
