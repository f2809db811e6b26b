package storeurl_test

import (
	"context"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/leasehold/leasehold/internal/embedetcd"
	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/storeurl"
)

// Open a store by URL, as the leasehold command does, and elect on it.
func ExampleOpen() {
	srv, err := embedetcd.Start() // an in-process etcd for the example
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	host := strings.TrimPrefix(srv.Endpoint, "http://") // 127.0.0.1:port

	ctx := context.Background()
	o, err := storeurl.Open(ctx, "etcd://"+host+"/myapp/", storeurl.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer o.Close()

	e, err := lease.New(o.Store, lease.Options{TTL: 2 * time.Second, Identity: "worker-1"})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close(ctx)
	l, err := e.Campaign(ctx, "jobs/scheduler")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(o.Store.Name(), "leader:", l.Identity)
	// Output:
	// etcd leader: worker-1
}

// Parse checks a URL without connecting. Its String, and every error,
// shows the password as xxxxx.
func ExampleParse() {
	u, err := storeurl.Parse("etcd://app:s3cret@10.0.0.1:2379,10.0.0.2:2379/myapp/")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(u.Scheme, u.Hosts, u.Username)
	fmt.Println(u)

	_, err = storeurl.Parse("etcd://app:s3cret@10.0.0.1:2379/myapp/?tick=2s")
	fmt.Println(err)
	// Output:
	// etcd [10.0.0.1:2379 10.0.0.2:2379] app
	// etcd://app:xxxxx@10.0.0.1:2379,10.0.0.2:2379/myapp/
	// store URL "etcd://app:xxxxx@10.0.0.1:2379/myapp/?tick=2s": unknown query parameter "tick": etcd takes none
}
