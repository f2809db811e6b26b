package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"

	"github.com/leasehold/leasehold/fencing"
)

// resource is an HTTP service that admits a write only with a fencing
// token no lower than any it has seen.
type resource struct {
	*httptest.Server
	guard              fencing.Guard
	accepted, rejected atomic.Int64
}

func newResource() *resource {
	r := &resource{}
	r.Server = httptest.NewServer(r.guard.Middleware(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		r.accepted.Add(1)
	})))
	return r
}

// write sends one write carrying token; it returns the resource's refusal.
func (r *resource) write(token uint64, body string) error {
	req, err := http.NewRequest(http.MethodPut, r.URL, strings.NewReader(body))
	if err != nil {
		return err
	}
	fencing.SetHeader(req.Header, fencing.Token(token))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		r.rejected.Add(1)
		return fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}
