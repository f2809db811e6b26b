package etcdtest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/internal/keys"
	"github.com/leasehold/leasehold/lease"
)

// TokenExpiry is the scenario of github.com/etcd-io/etcd/issues/17623 for an etcd whose auth
// tokens live TokenTTL (--auth-token-ttl, simple tokens), on a cluster
// whose RBAC an AuthHarness set up (Setup, on the same Endpoints): a
// candidate waits Lifetimes token lifetimes before it is promoted, and a
// leader leads as long, renewing, writing with GuardedPut each lifetime,
// watching its keys, and resigning at the end. Neither may fail or lose its
// leadership because a token expired. A second elector on the waiter's
// client campaigns only once the wait outlasted a token, and the waiter's
// elector starts an Observe then: the watches they open must work although
// the client's watch stream, open since the wait began, carries a lapsed
// token. Each step that waits is bounded by promptly, and the electors
// retry a failed call only after RetryInterval = 2×promptly, so a step that
// needed a retry fails too. Run checks as well that a token the waiter's
// user got as the wait began is refused once it ends, so that the wait did
// outlast a token.
type TokenExpiry struct {
	Endpoints []string
	TokenTTL  time.Duration
	Lifetimes int
	// Resolution is how late after TokenTTL the server may drop an unused
	// token: etcd checks its simple tokens once a second.
	Resolution time.Duration
}

// Figures are what a TokenExpiry run measured.
type Figures struct {
	Waited time.Duration // from the waiter's place in line to its promotion
	Led    time.Duration // from the leader's win to its Resign
	// InvalidRetried counts the unary calls of the electors' clients that
	// etcd refused with "invalid auth token", each of which clientv3
	// retried with a new token.
	InvalidRetried int
	// InvalidSeen counts the store errors with "invalid auth token" that
	// reached the electors (logged and retried by package lease).
	InvalidSeen int
}

// WaiterUser is the user TokenExpiry adds, with the "holder" role, for its
// waiting candidate.
const WaiterUser = "waiter"

// Run runs the scenario and returns its figures.
func (x *TokenExpiry) Run(t *testing.T) Figures {
	t.Helper()
	var logs logCounter
	root := x.dial(t, "root", RootPassword, zap.New(logs.zapCore()))
	ctx := context.Background()
	if _, err := root.UserAdd(ctx, WaiterUser, Password(WaiterUser)); err != nil {
		t.Fatalf("add user %s: %v", WaiterUser, err)
	}
	if _, err := root.UserGrantRole(ctx, WaiterUser, "holder"); err != nil {
		t.Fatalf("grant %s: %v", WaiterUser, err)
	}
	leader := x.elector(t, "holder", "leader", &logs)
	wc := x.dial(t, WaiterUser, Password(WaiterUser), zap.New(logs.zapCore()))
	r := &expiryRun{x: x, t: t, root: root, leader: leader, waiter: x.electorOn(t, wc, "waiter", &logs),
		late: x.electorOn(t, wc, "late", &logs), observer: x.electorOn(t, root, "observer", &logs)}
	r.run()
	return Figures{Waited: r.waited, Led: r.led, InvalidRetried: logs.count("client"), InvalidSeen: logs.count("lease")}
}

// expiryRun is one run of the scenario.
type expiryRun struct {
	x                        *TokenExpiry
	t                        *testing.T
	root                     *clientv3.Client
	leader, waiter, observer *lease.LeaseElector
	// late shares the waiter's client and first campaigns once the wait
	// outlasted a token, as a second elector of the waiter's process.
	late        *lease.LeaseElector
	waited, led time.Duration
}

// run: the leader takes el and a probe election, the waiter queues for
// el; once the wait outlasted a token, the late elector and an Observe on
// the waiter's client start, the probe's key is deleted behind the
// leader's back, the leader resigns el, and the promoted waiter writes and
// has its key deleted behind its back.
func (r *expiryRun) run() {
	el := "token-expiry-" + fmt.Sprint(time.Now().UnixNano())
	won := time.Now()
	l, probe := r.campaign(r.leader, el), r.campaign(r.leader, el+"-probe")
	wch := r.campaignAsync(r.waiter, el)
	r.awaitInLine(el, "waiter")
	waitStart := time.Now()
	tok := r.token(WaiterUser)
	r.hold(l)
	r.wantRefused(tok)
	select {
	case w := <-wch:
		r.t.Fatalf("waiter's campaign ended while the leader held: %+v", w)
	default:
	}
	obs := r.observe(el, "leader")
	r.keyLostWithin(r.campaign(r.late, el+"-late"))
	r.keyLostWithin(probe) // the leader's watch of its keys still works
	if err := l.Resign(r.ctx(10 * time.Second)); err != nil {
		r.t.Fatalf("leader's Resign after %d token lifetimes: %v", r.x.Lifetimes, err)
	}
	r.led = time.Since(won)
	r.promoted(wch, obs, waitStart)
}

// promoted checks the waiter's promotion: its Campaign returns, its
// Observe shows it, its GuardedPut lands and its watch works.
func (r *expiryRun) promoted(wch <-chan won, obs <-chan lease.LeaderInfo, waitStart time.Time) {
	w := r.awaitWin(wch)
	r.waited = time.Since(waitStart)
	r.awaitObserved(obs, "waiter")
	if err := w.GuardedPut(r.ctx(10*time.Second), w.Election+"-data", []byte("waiter")); err != nil {
		r.t.Fatalf("promoted waiter's GuardedPut: %v", err)
	}
	r.keyLostWithin(w)
}

// hold keeps l for Lifetimes token lifetimes and Resolution more, with a
// GuardedPut each lifetime; it fails as soon as l ends.
func (r *expiryRun) hold(l *lease.Leadership) {
	tick := time.NewTicker(r.x.TokenTTL)
	defer tick.Stop()
	end := time.After(time.Duration(r.x.Lifetimes)*r.x.TokenTTL + r.x.Resolution)
	for i := 1; ; i++ {
		select {
		case <-l.Context().Done():
			r.t.Fatalf("leader lost its leadership in token lifetime %d: %v", i, l.Err())
		case <-end:
			return
		case <-tick.C:
			if err := l.GuardedPut(r.ctx(10*time.Second), l.Election+"-data", fmt.Appendf(nil, "%d", i)); err != nil {
				r.t.Fatalf("leader's GuardedPut in token lifetime %d: %v", i, err)
			}
		}
	}
}

// token returns a new token of user, from a login of its own.
func (r *expiryRun) token(user string) string {
	resp, err := r.root.Authenticate(r.ctx(10*time.Second), user, Password(user))
	if err != nil {
		r.t.Fatalf("authenticate %s: %v", user, err)
	}
	return resp.Token
}

// wantRefused fails unless etcd refuses tok as an invalid auth token.
func (r *expiryRun) wantRefused(tok string) {
	c := r.x.dialToken(r.t, tok)
	_, err := c.Get(r.ctx(10*time.Second), keys.Leader(etcd.DefaultPrefix, "any"))
	if !errors.Is(rpctypes.Error(err), rpctypes.ErrInvalidAuthToken) {
		r.t.Fatalf("a token got as the wait began: Get: %v; want %v: the wait did not outlast the token", err, rpctypes.ErrInvalidAuthToken)
	}
}

func (r *expiryRun) ctx(d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	r.t.Cleanup(cancel)
	return ctx
}

// logCounter counts the log lines of the electors and their clients that
// name an invalid auth token, by source.
type logCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *logCounter) add(source, line string) {
	if !strings.Contains(line, rpctypes.ErrInvalidAuthToken.Error()) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[source]++
}

func (c *logCounter) count(source string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[source]
}

// zapCore is a zap core that hands c every line at warn level and above.
func (c *logCounter) zapCore() zapcore.Core {
	enc := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	return zapcore.NewCore(enc, zapcore.AddSync(writerFunc(func(p []byte) { c.add("client", string(p)) })), zap.WarnLevel)
}

// slogHandler is a slog handler that hands c every line at warn level and
// above.
func (c *logCounter) slogHandler() slog.Handler {
	return slog.NewTextHandler(writerFunc(func(p []byte) { c.add("lease", string(p)) }),
		&slog.HandlerOptions{Level: slog.LevelWarn})
}

type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }
