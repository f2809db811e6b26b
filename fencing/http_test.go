package fencing

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestSetHeaderFromHeader(t *testing.T) {
	h := http.Header{}
	if _, err := FromHeader(h); err != ErrNoToken {
		t.Fatalf("FromHeader(empty) = %v, want ErrNoToken", err)
	}
	SetHeader(h, 41)
	SetHeader(h, 42) // replaces
	if got := h.Values("Fencing-Token"); len(got) != 1 || got[0] != "42" {
		t.Fatalf("header values = %q, want [\"42\"]", got)
	}
	if tok, err := FromHeader(h); err != nil || tok != 42 {
		t.Fatalf("FromHeader = %d, %v; want 42, nil", tok, err)
	}

	for name, vals := range map[string][]string{
		"empty":     {""},
		"garbage":   {"abc"},
		"zero":      {"0"},
		"negative":  {"-3"},
		"two":       {"3", "4"},
		"two equal": {"3", "3"},
	} {
		h := http.Header{Header: vals}
		tok, err := FromHeader(h)
		if err == nil {
			t.Errorf("%s: FromHeader(%q) = %d, nil; want error", name, vals, tok)
			continue
		}
		if errors.Is(err, ErrNoToken) || errors.Is(err, ErrStale) || errors.Unwrap(err) != nil {
			t.Errorf("%s: FromHeader(%q) error %v wraps another error", name, vals, err)
		}
		if want := strconv.Quote(strings.Join(vals, ", ")); !strings.Contains(err.Error(), want) {
			t.Errorf("%s: FromHeader(%q) error %q does not name the input", name, vals, err)
		}
	}
}

// fencedServer starts an httptest server whose handler is fenced by g and
// records every call. The handler checks that it runs under g.
type fencedServer struct {
	*httptest.Server
	mu    sync.Mutex
	calls []Token
}

func newFencedServer(t *testing.T, g *Guard) *fencedServer {
	t.Helper()
	fs := &fencedServer{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, err := FromHeader(r.Header)
		if err != nil {
			t.Errorf("handler ran with bad token: %v", err)
		}
		if g.mu.TryLock() {
			g.mu.Unlock()
			t.Errorf("handler for token %d ran without the guard's lock", tok)
		}
		if h := g.Highest(); h != tok {
			t.Errorf("handler for token %d: Highest() = %d", tok, h)
		}
		fs.mu.Lock()
		fs.calls = append(fs.calls, tok)
		fs.mu.Unlock()
		fmt.Fprintf(w, "wrote with %d", tok)
	})
	fs.Server = httptest.NewServer(g.Middleware(h))
	t.Cleanup(fs.Close)
	return fs
}

func (fs *fencedServer) ncalls() int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return len(fs.calls)
}

// do sends a POST with the given header values (nil: no header).
func (fs *fencedServer) do(t *testing.T, vals []string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, fs.URL, strings.NewReader("data"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vals {
		req.Header.Add(Header, v)
	}
	resp, err := fs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body), resp.Header
}

func TestMiddleware(t *testing.T) {
	var g Guard
	fs := newFencedServer(t, &g)

	steps := []struct {
		name   string
		vals   []string
		status int
		body   string // substring of the body
	}{
		{"first", []string{"5"}, 200, "wrote with 5"},
		{"equal", []string{"5"}, 200, "wrote with 5"},
		{"newer", []string{"9"}, 200, "wrote with 9"},
		{"stale", []string{"5"}, 409, "fencing: token 5 is stale: highest seen is 9"},
		{"stale one below", []string{"8"}, 409, "fencing: token 8 is stale: highest seen is 9"},
		{"missing", nil, 400, "missing Fencing-Token header"},
		{"empty", []string{""}, 400, `""`},
		{"malformed", []string{"nine"}, 400, `"nine"`},
		{"zero", []string{"0"}, 400, `"0"`},
		{"negative", []string{"-10"}, 400, `"-10"`},
		{"overflow", []string{"99999999999999999999"}, 400, `"99999999999999999999"`},
		{"two values", []string{"10", "11"}, 400, "want one"},
		{"equal again", []string{"9"}, 200, "wrote with 9"},
		{"newer again", []string{"10"}, 200, "wrote with 10"},
	}
	wantCalls := 0
	for _, s := range steps {
		before := fs.ncalls()
		status, body, hdr := fs.do(t, s.vals)
		if status != s.status {
			t.Errorf("%s %q: status %d, want %d (body %q)", s.name, s.vals, status, s.status, body)
		}
		if !strings.Contains(body, s.body) {
			t.Errorf("%s %q: body %q does not contain %q", s.name, s.vals, body, s.body)
		}
		ran := fs.ncalls() - before
		if status == 200 {
			wantCalls++
			if ran != 1 {
				t.Errorf("%s %q: admitted but handler ran %d times", s.name, s.vals, ran)
			}
		} else {
			if ran != 0 {
				t.Errorf("%s %q: rejected but handler ran", s.name, s.vals)
			}
			if strings.Count(body, "\n") != 1 || !strings.HasSuffix(body, "\n") {
				t.Errorf("%s %q: body %q is not one line", s.name, s.vals, body)
			}
			if ct := hdr.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
				t.Errorf("%s %q: Content-Type %q, want text/plain", s.name, s.vals, ct)
			}
		}
	}
	if got := fs.ncalls(); got != wantCalls {
		t.Errorf("handler ran %d times, want %d", got, wantCalls)
	}
	if h := g.Highest(); h != 10 {
		t.Errorf("Highest() = %d, want 10", h)
	}
}

// TestMiddlewareConcurrent sends requests with random tokens in parallel.
// The handler must run exactly for the 200 responses, and the tokens it sees
// must never go down.
func TestMiddlewareConcurrent(t *testing.T) {
	var g Guard
	fs := newFencedServer(t, &g)
	const clients = 8
	const reqs = 40
	var ok sync.Map // token -> count of 200s, for cross-checking
	var wg sync.WaitGroup
	var mu sync.Mutex
	admitted := 0
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(c), 7))
			for j := range reqs {
				tok := Token(j*2 + r.IntN(8) + 1)
				req, err := http.NewRequestWithContext(t.Context(), http.MethodPut, fs.URL, nil)
				if err != nil {
					t.Error(err)
					return
				}
				SetHeader(req.Header, tok)
				resp, err := fs.Client().Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				switch resp.StatusCode {
				case http.StatusOK:
					mu.Lock()
					admitted++
					mu.Unlock()
					ok.Store(tok, true)
				case http.StatusConflict:
				default:
					t.Errorf("token %d: status %d", tok, resp.StatusCode)
				}
			}
		}()
	}
	wg.Wait()

	fs.mu.Lock()
	defer fs.mu.Unlock()
	if len(fs.calls) != admitted {
		t.Fatalf("handler ran %d times for %d admitted requests", len(fs.calls), admitted)
	}
	for i, tok := range fs.calls {
		if i > 0 && tok < fs.calls[i-1] {
			t.Fatalf("handler saw token %d after %d", tok, fs.calls[i-1])
		}
		if _, found := ok.Load(tok); !found {
			t.Fatalf("handler ran for token %d but no request with it got 200", tok)
		}
	}
}
