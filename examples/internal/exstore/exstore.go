// Package exstore opens the store an example runs against: the URL given,
// or an in-process etcd when there is none.
package exstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/embedetcd"
	"github.com/leasehold/leasehold/storeurl"
)

// Open returns a Store on url (see package storeurl), or on a fresh
// in-process etcd if url is empty, and a function that releases it.
func Open(ctx context.Context, url string) (*backends.Store, func(), error) {
	var srv *embedetcd.Server
	if url == "" {
		var err error
		if srv, err = embedetcd.Start(); err != nil {
			return nil, nil, err
		}
		url = "etcd://" + strings.TrimPrefix(srv.Endpoint, "http://") + "/examples"
		fmt.Println("using an in-process etcd at", srv.Endpoint)
	}
	st, err := storeurl.Open(ctx, url, storeurl.Options{})
	if err != nil {
		if srv != nil {
			srv.Close()
		}
		return nil, nil, err
	}
	return st.Store, func() {
		st.Close()
		if srv != nil {
			srv.Close()
		}
	}, nil
}
