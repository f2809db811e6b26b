package fencinggrpc_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/leasehold/leasehold/fencing"
	"github.com/leasehold/leasehold/fencing/fencinggrpc"
)

func TestAppendToOutgoingContext(t *testing.T) {
	ctx := metadata.AppendToOutgoingContext(context.Background(), "other", "kept")
	ctx = fencinggrpc.AppendToOutgoingContext(ctx, 3)
	ctx = fencinggrpc.AppendToOutgoingContext(ctx, 9) // replaces 3
	md, ok := metadata.FromOutgoingContext(ctx)
	if !ok {
		t.Fatal("no outgoing metadata")
	}
	if got := md.Get(fencinggrpc.MetadataKey); len(got) != 1 || got[0] != "9" {
		t.Errorf("%s = %q, want [\"9\"]", fencinggrpc.MetadataKey, got)
	}
	if got := md.Get("other"); len(got) != 1 || got[0] != "kept" {
		t.Errorf("other = %q, want [\"kept\"]", got)
	}
}

func TestFromIncomingContext(t *testing.T) {
	in := func(kv ...string) context.Context {
		return metadata.NewIncomingContext(context.Background(), metadata.Pairs(kv...))
	}
	if tok, err := fencinggrpc.FromIncomingContext(context.Background()); err != fencing.ErrNoToken {
		t.Errorf("no metadata: got %d, %v; want ErrNoToken", tok, err)
	}
	if tok, err := fencinggrpc.FromIncomingContext(in("other", "1")); err != fencing.ErrNoToken {
		t.Errorf("no token: got %d, %v; want ErrNoToken", tok, err)
	}
	if tok, err := fencinggrpc.FromIncomingContext(in(fencinggrpc.MetadataKey, "17")); err != nil || tok != 17 {
		t.Errorf("17: got %d, %v; want 17, nil", tok, err)
	}
	for name, kv := range map[string][]string{
		"empty":   {fencinggrpc.MetadataKey, ""},
		"garbage": {fencinggrpc.MetadataKey, "x1"},
		"zero":    {fencinggrpc.MetadataKey, "0"},
		"two":     {fencinggrpc.MetadataKey, "1", fencinggrpc.MetadataKey, "2"},
	} {
		var vals []string
		for i := 1; i < len(kv); i += 2 {
			vals = append(vals, kv[i])
		}
		tok, err := fencinggrpc.FromIncomingContext(in(kv...))
		if err == nil {
			t.Errorf("%s: got %d, nil; want error", name, tok)
			continue
		}
		if errors.Is(err, fencing.ErrNoToken) || errors.Unwrap(err) != nil {
			t.Errorf("%s: error %v wraps another error", name, err)
		}
		if want := strconv.Quote(strings.Join(vals, ", ")); !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q does not name the input %s", name, err, want)
		}
	}
}

// TestFromIncomingContextLongInputShortened: an error quotes at most 40
// bytes of the metadata values, as the HTTP helper does, however many and
// however long they are.
func TestFromIncomingContextLongInputShortened(t *testing.T) {
	long := strings.Repeat("y", 300)
	for name, vals := range map[string][]string{
		"one long":  {long},
		"two long":  {long, long},
		"many":      strings.Split(strings.Repeat("1,", 100)+"1", ","),
		"long, one": {"7", long},
	} {
		md := metadata.MD{}
		md.Append(fencinggrpc.MetadataKey, vals...)
		_, err := fencinggrpc.FromIncomingContext(metadata.NewIncomingContext(context.Background(), md))
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		if len(err.Error()) > 120 || !strings.Contains(err.Error(), "...") {
			t.Errorf("%s: error is %d bytes, want it shortened to about 40 bytes of input: %v", name, len(err.Error()), err)
		}
	}
}

// server is a real gRPC server on a loopback listener serving the health
// service, fenced by one Guard, with a client connected to it.
type server struct {
	guard  *fencing.Guard
	client healthpb.HealthClient

	mu    sync.Mutex
	calls []fencing.Token // tokens for which a handler ran
}

func (s *server) ncalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.calls)
}

func (s *server) record(ctx context.Context, t *testing.T) {
	tok, err := fencinggrpc.FromIncomingContext(ctx)
	if err != nil {
		t.Errorf("handler ran with bad token: %v", err)
	}
	s.mu.Lock()
	s.calls = append(s.calls, tok)
	s.mu.Unlock()
}

func startServer(t *testing.T, g *fencing.Guard) *server {
	t.Helper()
	s := &server{guard: g}
	// These run inside the fencing interceptors, that is, only once a
	// token has been admitted, just as the real handler would.
	recordUnary := func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		tok, _ := fencinggrpc.FromIncomingContext(ctx)
		if hi := g.Highest(); hi != tok {
			t.Errorf("unary handler for token %d: Highest() = %d", tok, hi)
		}
		// Yield to widen the window in which a call with another token
		// could interleave if the handler were not run under the guard.
		runtime.Gosched()
		s.record(ctx, t)
		return h(ctx, req)
	}
	recordStream := func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
		s.record(ss.Context(), t)
		return h(srv, ss)
	}
	srv := grpc.NewServer(
		grpc.ChainUnaryInterceptor(fencinggrpc.UnaryServerInterceptor(g), recordUnary),
		grpc.ChainStreamInterceptor(fencinggrpc.StreamServerInterceptor(g), recordStream),
	)
	healthpb.RegisterHealthServer(srv, health.NewServer())

	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	t.Cleanup(func() {
		srv.Stop()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})

	conn, err := grpc.NewClient("passthrough:///"+lis.Addr().String(),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithNoProxy())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	s.client = healthpb.NewHealthClient(conn)
	return s
}

// withRaw returns ctx carrying the given raw metadata values for the token.
func withRaw(ctx context.Context, vals ...string) context.Context {
	for _, v := range vals {
		ctx = metadata.AppendToOutgoingContext(ctx, fencinggrpc.MetadataKey, v)
	}
	return ctx
}

func TestUnaryServerInterceptor(t *testing.T) {
	g := fencing.NewGuard(0)
	s := startServer(t, g)

	tok := func(tk fencing.Token) context.Context {
		return fencinggrpc.AppendToOutgoingContext(t.Context(), tk)
	}
	steps := []struct {
		name string
		ctx  context.Context
		code codes.Code
		msg  string // substring of the status message
	}{
		{"first", tok(5), codes.OK, ""},
		{"equal", tok(5), codes.OK, ""},
		{"newer", tok(9), codes.OK, ""},
		{"stale", tok(5), codes.FailedPrecondition, "token 5 is stale: highest seen is 9"},
		{"stale one below", tok(8), codes.FailedPrecondition, "token 8 is stale: highest seen is 9"},
		{"missing", t.Context(), codes.InvalidArgument, "missing fencing-token"},
		{"malformed", withRaw(t.Context(), "nine"), codes.InvalidArgument, `"nine"`},
		{"zero", withRaw(t.Context(), "0"), codes.InvalidArgument, `"0"`},
		{"two values", withRaw(t.Context(), "10", "11"), codes.InvalidArgument, `"10, 11"`},
		{"equal again", tok(9), codes.OK, ""},
		{"newer again", tok(12), codes.OK, ""},
	}
	want := 0
	for _, st := range steps {
		before := s.ncalls()
		resp, err := s.client.Check(st.ctx, &healthpb.HealthCheckRequest{})
		got := status.Code(err)
		if got != st.code {
			t.Errorf("%s: code %v (%v), want %v", st.name, got, err, st.code)
			continue
		}
		ran := s.ncalls() - before
		if st.code == codes.OK {
			want++
			if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
				t.Errorf("%s: status %v, want SERVING", st.name, resp.GetStatus())
			}
			if ran != 1 {
				t.Errorf("%s: admitted but handler ran %d times", st.name, ran)
			}
			continue
		}
		if ran != 0 {
			t.Errorf("%s: rejected but handler ran", st.name)
		}
		if m := status.Convert(err).Message(); !strings.Contains(m, st.msg) {
			t.Errorf("%s: message %q does not contain %q", st.name, m, st.msg)
		}
	}
	if got := s.ncalls(); got != want {
		t.Errorf("handler ran %d times, want %d", got, want)
	}
	if h := g.Highest(); h != 12 {
		t.Errorf("Highest() = %d, want 12", h)
	}
}

func TestStreamServerInterceptor(t *testing.T) {
	g := fencing.NewGuard(20)
	s := startServer(t, g)

	watch := func(ctx context.Context) (*healthpb.HealthCheckResponse, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stream, err := s.client.Watch(ctx, &healthpb.HealthCheckRequest{})
		if err != nil {
			return nil, err
		}
		return stream.Recv()
	}

	for _, st := range []struct {
		name string
		ctx  context.Context
		code codes.Code
		msg  string
	}{
		{"stale", fencinggrpc.AppendToOutgoingContext(t.Context(), 19), codes.FailedPrecondition, "token 19 is stale: highest seen is 20"},
		{"missing", t.Context(), codes.InvalidArgument, "missing fencing-token"},
		{"malformed", withRaw(t.Context(), "-1"), codes.InvalidArgument, `"-1"`},
		{"equal", fencinggrpc.AppendToOutgoingContext(t.Context(), 20), codes.OK, ""},
		{"newer", fencinggrpc.AppendToOutgoingContext(t.Context(), 21), codes.OK, ""},
		{"stale after newer", fencinggrpc.AppendToOutgoingContext(t.Context(), 20), codes.FailedPrecondition, "token 20 is stale: highest seen is 21"},
	} {
		before := s.ncalls()
		resp, err := watch(st.ctx)
		if got := status.Code(err); got != st.code {
			t.Errorf("%s: code %v (%v), want %v", st.name, got, err, st.code)
			continue
		}
		ran := s.ncalls() - before
		if st.code == codes.OK {
			if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
				t.Errorf("%s: status %v, want SERVING", st.name, resp.GetStatus())
			}
			if ran != 1 {
				t.Errorf("%s: admitted but handler ran %d times", st.name, ran)
			}
			continue
		}
		if ran != 0 {
			t.Errorf("%s: rejected but handler ran", st.name)
		}
		if m := status.Convert(err).Message(); !strings.Contains(m, st.msg) {
			t.Errorf("%s: message %q does not contain %q", st.name, m, st.msg)
		}
	}
	if h := g.Highest(); h != 21 {
		t.Errorf("Highest() = %d, want 21", h)
	}
}

// TestUnaryServerInterceptorConcurrent makes many concurrent calls with
// random, roughly increasing tokens. Handlers run under the guard, so the
// tokens they see must never go down, and a handler must have run for
// exactly the calls that succeeded.
func TestUnaryServerInterceptorConcurrent(t *testing.T) {
	g := new(fencing.Guard)
	s := startServer(t, g)
	const clients = 8
	const calls = 60
	var clock atomic.Uint64
	var succeeded atomic.Int64
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(c), 11))
			for range calls {
				tok := fencing.Token(clock.Add(1)/2 + r.Uint64N(6) + 1)
				ctx := fencinggrpc.AppendToOutgoingContext(t.Context(), tok)
				_, err := s.client.Check(ctx, &healthpb.HealthCheckRequest{})
				switch code := status.Code(err); code {
				case codes.OK:
					succeeded.Add(1)
				case codes.FailedPrecondition:
				default:
					t.Errorf("token %d: %v", tok, err)
				}
			}
		}()
	}
	wg.Wait()

	s.mu.Lock()
	defer s.mu.Unlock()
	if int64(len(s.calls)) != succeeded.Load() {
		t.Fatalf("handler ran %d times for %d successful calls", len(s.calls), succeeded.Load())
	}
	for i := 1; i < len(s.calls); i++ {
		if s.calls[i] < s.calls[i-1] {
			t.Fatalf("handler saw token %d after %d", s.calls[i], s.calls[i-1])
		}
	}
	t.Logf("%d of %d calls admitted", len(s.calls), clients*calls)
}
