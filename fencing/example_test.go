package fencing_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/leasehold/leasehold/fencing"
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
