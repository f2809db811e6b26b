package integration

import (
	"errors"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/consul/consultest"
	"github.com/leasehold/leasehold/integration/stores"
	"github.com/leasehold/leasehold/internal/driver"
)

// TestConsulWatchDenied: a WatchSet whose token may not read the prefix
// ends its requests with ErrPermission, whether Consul refuses the token
// (403) or filters the list by its rights, and a request made after is
// refused again.
func TestConsulWatchDenied(t *testing.T) {
	h := &consultest.AuthHarness{Addr: stores.ConsulACL(t), ManagementToken: stores.ConsulManagementToken}
	h.Setup(t)
	holder := h.Holder(t)
	ctx := backendtest.Context(t, 30*time.Second)
	ss, err := driver.Of(holder).NewSession(ctx, consul.MinTTL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close(backendtest.Context(t, 10*time.Second)) })
	el := backendtest.Election(t)
	if _, err := ss.Create(ctx, el, []byte("holder")); err != nil {
		t.Fatal(err)
	}
	for _, c := range h.Refused() {
		if c.KeyRead || c.Name == "anonymous" {
			continue // "anonymous" is "no-rights" without a token
		}
		t.Run(c.Name, func(t *testing.T) {
			s, _ := c.Store(t)
			ch := make(chan backends.Change, 4)
			set := driver.Of(s).Watch(func(c backends.Change) { ch <- c })
			t.Cleanup(func() { _ = set.Close() })
			for tag := range uint64(2) {
				set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: tag, Known: backends.Record{Election: el}})
				select {
				case got := <-ch:
					if got.Tag != tag || !errors.Is(got.Err, backends.ErrPermission) {
						t.Fatalf("answer %+v, want tag %d ending with ErrPermission", got, tag)
					}
					t.Log(got.Err)
				case <-time.After(20 * time.Second):
					t.Fatalf("request %d: no answer within 20s", tag)
				}
			}
		})
	}
}
