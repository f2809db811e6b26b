package consul_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/consul"
)

// fake is a loopback HTTP server standing in for a Consul agent, for
// testing how the adapter classifies answers a real agent gives rarely.
type fake struct {
	mu   sync.Mutex
	hits []*http.Request
}

// newFake serves routes ("METHOD /path" patterns of http.ServeMux) and
// returns a Store on it. Unrouted requests get 404, but for the layout
// marker: its write succeeds, and a read finds none.
func newFake(t *testing.T, routes map[string]http.HandlerFunc) (consul.Driver, *fake) {
	t.Helper()
	f := &fake{}
	mux := http.NewServeMux()
	if _, ok := routes[layoutWrite]; !ok {
		mux.HandleFunc(layoutWrite, reply(http.StatusOK, true))
		mux.HandleFunc("GET /v1/kv/"+consul.DefaultPrefix+"~layout", kvReply(nil, 1))
	}
	for pattern, h := range routes {
		mux.HandleFunc(pattern, h)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.hits = append(f.hits, r)
		f.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	cfg := api.DefaultConfig()
	cfg.Address, cfg.Scheme = srv.Listener.Addr().String(), "http"
	c, err := api.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cfg.Transport.CloseIdleConnections)
	return newStore(t, c, consul.Options{}), f
}

// layoutWrite is the route of the layout marker's write.
const layoutWrite = "PUT /v1/kv/" + consul.DefaultPrefix + "~layout"

// requests returns "METHOD path" of every request served so far.
func (f *fake) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.hits {
		out = append(out, r.Method+" "+r.URL.Path)
	}
	return out
}

// waitIndexes returns the index parameter of every request to path.
func (f *fake) waitIndexes(path string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.hits {
		if r.URL.Path == path {
			out = append(out, r.URL.Query().Get("index"))
		}
	}
	return out
}

// reply answers with status and v as JSON.
func reply(status int, v any) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
}

// kvReply answers a KV read with the pair (404 if nil) at index.
func kvReply(p *api.KVPair, index uint64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Consul-Index", strconv.FormatUint(index, 10))
		if p == nil {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		reply(http.StatusOK, []*api.KVPair{p})(w, r)
	}
}

// sessionCreated answers a session create with ID "s1".
var sessionCreated = reply(http.StatusOK, map[string]string{"ID": "s1"})

// rolledBack answers a transaction with a 409 naming the failed ops.
func rolledBack(ops ...int) http.HandlerFunc {
	var errs api.TxnErrors
	for _, i := range ops {
		errs = append(errs, &api.TxnError{OpIndex: i, What: "failed op " + strconv.Itoa(i)})
	}
	return reply(http.StatusConflict, api.TxnResponse{Errors: errs})
}
