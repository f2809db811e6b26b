package fencing_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/fencing"
	"github.com/leasehold/leasehold/internal/embedetcd"
	"github.com/leasehold/leasehold/lease"
)

func ExampleGuard() {
	var g fencing.Guard // the zero value is ready to use

	fmt.Println(g.Admit(7)) // the current leader writes...
	fmt.Println(g.Admit(7)) // ...as often as it likes

	// A deposed leader with an older token is refused.
	err := g.Admit(5)
	fmt.Println(err)
	fmt.Println(errors.Is(err, fencing.ErrStale))

	// Do runs the write itself under the guard, so no lower token can
	// slip in between the check and the write.
	err = g.Do(8, func() error {
		fmt.Println("writing with token", g.Highest())
		return nil
	})
	fmt.Println(err, g.Highest())

	// Output:
	// <nil>
	// <nil>
	// fencing: token 5 is stale: highest seen is 7
	// true
	// writing with token 8
	// <nil> 8
}

func ExampleNewGuard() {
	// After a restart, restore the highest token from durable state.
	highest := fencing.Token(41) // e.g. read back from the resource's own storage
	g := fencing.NewGuard(highest)
	fmt.Println(g.Admit(40))
	fmt.Println(g.Admit(41))
	// Output:
	// fencing: token 40 is stale: highest seen is 41
	// <nil>
}

func ExampleGuard_Middleware() {
	var g fencing.Guard
	store := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t, _ := fencing.FromHeader(r.Header)
		fmt.Fprintf(w, "stored with token %v\n", t)
	})
	h := g.Middleware(store)

	send := func(t fencing.Token, withToken bool) {
		req := httptest.NewRequest(http.MethodPut, "/value", nil)
		if withToken {
			fencing.SetHeader(req.Header, t) // what a leader's client does
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		fmt.Print(rec.Code, " ", rec.Body.String())
	}

	send(3, true)
	send(4, true)
	send(3, true) // the old leader wakes up
	send(0, false)

	// Output:
	// 200 stored with token 3
	// 200 stored with token 4
	// 409 fencing: token 3 is stale: highest seen is 4
	// 400 fencing: missing Fencing-Token header
}

func ExampleParseToken() {
	t, err := fencing.ParseToken("12")
	fmt.Println(t, err)
	_, err = fencing.ParseToken("0")
	fmt.Println(err)
	// Output:
	// 12 <nil>
	// fencing: invalid token "0": zero is not a valid token
}

// End to end: a resource behind Guard.Middleware takes writes from the
// leaders of an election, each sending its term's token. Once the successor
// has written, a write of the deposed leader is refused, however late it
// arrives.
func Example() {
	srv, err := embedetcd.Start() // an in-process etcd for the example
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	cli, err := srv.Client()
	if err != nil {
		log.Fatal(err)
	}
	defer cli.Close()
	store, err := etcd.New(cli, etcd.Options{})
	if err != nil {
		log.Fatal(err)
	}

	var g fencing.Guard
	resource := httptest.NewServer(g.Middleware(http.HandlerFunc(
		func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "stored") })))
	defer resource.Close()
	write := func(who string, l *lease.Leadership) {
		req, _ := http.NewRequest(http.MethodPut, resource.URL+"/value", nil)
		fencing.SetHeader(req.Header, l.Token) // every write carries the token
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
		fmt.Println(who, resp.Status)
	}

	ctx := context.Background()
	campaign := func(e *lease.LeaseElector) *lease.Leadership {
		l, err := e.Campaign(ctx, "jobs/scheduler")
		if err != nil {
			log.Fatal(err)
		}
		return l
	}
	a, errA := lease.New(store, lease.Options{TTL: 2 * time.Second})
	b, errB := lease.New(store, lease.Options{TTL: 2 * time.Second})
	if err := errors.Join(errA, errB); err != nil {
		log.Fatal(err)
	}
	defer a.Close(ctx)
	defer b.Close(ctx)

	old := campaign(a)
	write("leader:", old)
	_ = old.Resign(ctx) // stands for a leader deposed during a pause
	successor := campaign(b)
	write("successor:", successor)
	write("deposed leader:", old) // the paused leader wakes up and writes
	// Output:
	// leader: 200 OK
	// successor: 200 OK
	// deposed leader: 409 Conflict
}
