// Package report holds the benchmark's results and writes them as JSON,
// a PNG plot of the hand-off latencies, and the whole of
// docs/benchmarks.md (Page): the method and one table per question,
// generated from the runs and nothing else.
package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/leasehold/leasehold/bench/internal/stat"
)

// Results is everything one run measured.
type Results struct {
	// Mode is "full" or "quick".
	Mode string `json:"mode"`
	// Started is the start time (RFC 3339).
	Started string `json:"started"`
	// WallSeconds is the run's wall time.
	WallSeconds float64 `json:"wall_seconds"`
	// Machine describes where it ran.
	Machine string `json:"machine"`
	// Commit is the repository's commit the run was built from (git
	// rev-parse --short HEAD, "+dirty" with uncommitted changes); empty
	// in runs made before it was recorded.
	Commit string `json:"commit,omitempty"`
	// Scenarios are the scenarios a partial run ran (BENCH_SCENARIOS);
	// empty when it ran them all.
	Scenarios []string `json:"scenarios,omitempty"`
	// Turns reports whether the stores took turns: their latency
	// scenarios ran at once, one store measuring at a time while the
	// others paused (bench's turn.Lock). Runs without it ran the stores
	// one after another.
	Turns bool `json:"turns,omitempty"`
	// Stores has one entry per store.
	Stores []*Store `json:"stores"`
}

// Ran reports whether the run included scenario name.
func (r *Results) Ran(name string) bool {
	return len(r.Scenarios) == 0 || slices.Contains(r.Scenarios, name)
}

// Store is what was measured on one store (a single node in a container).
type Store struct {
	// Name is the store: etcd, zookeeper or consul.
	Name string `json:"store"`
	// TTL is the session TTL of the hand-off, crash, sharded and idle runs.
	TTL string `json:"ttl"`
	// Physical is the paced write-then-notify reference.
	Physical Latency `json:"physical"`
	// Handoff has one entry per library and variant.
	Handoff []Handoff `json:"handoff"`
	// Crash has one entry per library and lock-delay.
	Crash []Crash `json:"crash"`
	// Herd has one entry per N.
	Herd []Herd `json:"herd"`
	// Sharded has one entry per number of elections.
	Sharded []Sharded `json:"sharded"`
	// Shards has the shards scenario's group, if it ran.
	Shards []ShardGroup `json:"shards,omitempty"`
	// Idle has one entry per library.
	Idle []Idle `json:"idle"`
	// SlowLink has one entry per library.
	SlowLink []SlowLink `json:"slow_link,omitempty"`
	// Policies has one entry per number of waiters (planned handover).
	Policies []Policy `json:"policies,omitempty"`
	// Errors lists scenarios that failed, with the error.
	Errors []string `json:"errors,omitempty"`
	// Seconds is the wall time each scenario took on this store, by
	// its BENCH_SCENARIOS name (runs before 2026-11-29 have none).
	Seconds map[string]float64 `json:"scenario_s,omitempty"`
}

// Latency is a latency summary with its samples in milliseconds.
type Latency struct {
	stat.Summary
	// Samples are the raw samples, in milliseconds, in order.
	Samples []float64 `json:"samples_ms"`
}

// Handoff is one graceful hand-off series.
type Handoff struct {
	// Lib is the library: leasehold, native or valkeyrie.
	Lib string `json:"lib"`
	// Peer is the library's display name.
	Peer string `json:"peer"`
	// Variant is settled or fresh.
	Variant string `json:"variant"`
	// Latency is release to successor leading.
	Latency
}

// Crash is one crash-failover series.
type Crash struct {
	// Lib is the library: leasehold or native.
	Lib string `json:"lib"`
	// Peer is the library's display name.
	Peer string `json:"peer"`
	// LockDelay is Consul's lock-delay ("" elsewhere).
	LockDelay string `json:"lock_delay,omitempty"`
	// TTLSeconds is the session TTL.
	TTLSeconds float64 `json:"ttl_s"`
	// Latency is SIGKILL to successor leading.
	Latency
	// WorstOverTTL is Max / TTL.
	WorstOverTTL float64 `json:"worst_over_ttl"`
}

// The herd's modes.
const (
	// HerdDefault is leasehold's default configuration: the ordered
	// queue (lease.WaitQueue) on all three stores.
	HerdDefault = "default"
	// HerdKey is key mode (lease.WaitKey): every waiter watches the
	// leader key.
	HerdKey = "key"
)

// Herd is one herd run of leasehold with N waiting candidates.
type Herd struct {
	// N is the number of candidates.
	N int `json:"n"`
	// Mode is HerdDefault or HerdKey; results of runs before issue 14
	// have "queue" (then opt-in) or "key", the default then.
	Mode string `json:"mode"`
	// Connections says how the N electors reach the store.
	Connections string `json:"connections"`
	// TTL is the sessions' TTL.
	TTL string `json:"ttl"`
	// Latency is resign to successor leading.
	Latency
	// RequestsPerFailover is store requests per hand-off cycle, net of
	// session renewals and the background (see scenario.HerdResult).
	RequestsPerFailover float64 `json:"requests_per_failover"`
	// NotificationsPerFailover is watch notifications per hand-off cycle.
	NotificationsPerFailover float64 `json:"notifications_per_failover"`
	// BackgroundRequestsPerSec is the request rate while all wait.
	BackgroundRequestsPerSec float64 `json:"background_requests_per_s"`
	// SetupSeconds is the time until all campaigned and one won.
	SetupSeconds float64 `json:"setup_s"`
}

// Sharded is one sharded run: M elections on one leasehold elector.
type Sharded struct {
	// M is the number of elections.
	M int `json:"elections"`
	// AcquireSeconds is the time to win all of them.
	AcquireSeconds float64 `json:"acquire_all_s"`
	// RequestsPerSec is the store's request rate while all are held.
	RequestsPerSec float64 `json:"requests_per_s"`
	// NotificationsPerSec is the watch notification rate meanwhile.
	NotificationsPerSec float64 `json:"notifications_per_s"`
	// HeapBytesPerElect is live heap growth per election after GC.
	HeapBytesPerElect float64 `json:"heap_bytes_per_election"`
	// Goroutines is the process's goroutine count while all are held;
	// GoroutinesBefore the count before the elector was made.
	Goroutines       int `json:"goroutines"`
	GoroutinesBefore int `json:"goroutines_before"`
	// Conns is the process's open TCP connections to the store while all
	// are held; ConnsBefore the count before the elector was made.
	Conns       int `json:"connections"`
	ConnsBefore int `json:"connections_before"`
	// Skipped says why the run was not made, if it was not.
	Skipped string `json:"skipped,omitempty"`
}

// ShardedAt returns the sharded run of m elections, if there is one.
func (s *Store) ShardedAt(m int) (Sharded, bool) {
	for _, h := range s.Sharded {
		if h.M == m && h.Skipped == "" {
			return h, true
		}
	}
	return Sharded{}, false
}

// ShardGroup is one run of the shards scenario: a group (package
// lease/shard) of N members, each an elector with its own client and
// session, and M shards, all in the benchmark's process.
type ShardGroup struct {
	// N is the members of the cold start; the join makes N+1.
	N int `json:"members"`
	// M is the number of shards.
	M int `json:"shards"`
	// Settle is the members' shard.Options.Settle.
	Settle string `json:"settle"`
	// RoundTripMs is the median store write round trip, measured before.
	RoundTripMs float64 `json:"round_trip_ms"`
	// ColdSeconds is the time from the N Joins, called at once, to
	// balance; ColdRequests the store's requests meanwhile (its
	// counters), and ColdCalls the members' traced store calls by
	// operation.
	ColdSeconds  float64        `json:"cold_start_s"`
	ColdRequests float64        `json:"cold_start_requests"`
	ColdCalls    map[string]int `json:"cold_start_calls"`
	// SteadyRequestsPerSec and SteadyNotificationsPerSec are the store's
	// rates while the N members hold the M shards.
	SteadyRequestsPerSec      float64 `json:"steady_requests_per_s"`
	SteadyNotificationsPerSec float64 `json:"steady_notifications_per_s"`
	// HeapBytesPerShard is the live heap growth per shard after GC, all
	// members together, beyond their electors and sessions.
	HeapBytesPerShard float64 `json:"heap_bytes_per_shard"`
	// Goroutines is the process's goroutine count in the steady state.
	Goroutines int `json:"goroutines"`
	// PlainRequestsPerSec and PlainHeapBytesPerElect are the sharded
	// scenario's figures for M plain elections on one elector, in this
	// run.
	PlainRequestsPerSec    float64 `json:"plain_requests_per_s"`
	PlainHeapBytesPerElect float64 `json:"plain_heap_bytes_per_election"`
	// JoinMoves is the shards that changed owner from one more member's
	// Join to balance, JoinToNew those the new member took, JoinReleases
	// their releases by reason,
	// JoinBalanceSeconds that time, and JoinMaxUnownedMs the longest a
	// shard went without a holder.
	JoinMoves          int            `json:"join_moves"`
	JoinToNew          int            `json:"join_to_new"`
	JoinReleases       map[string]int `json:"join_releases"`
	JoinBalanceSeconds float64        `json:"join_balance_s"`
	JoinMaxUnownedMs   float64        `json:"join_max_unowned_ms"`
	// KillSeconds is the time from severing one member's link (no Leave:
	// its session expires on the store) until the others hold every
	// shard; KillBalanceSeconds until they are balanced.
	KillSeconds        float64 `json:"kill_takeover_s"`
	KillBalanceSeconds float64 `json:"kill_balance_s"`
	// KillSkipped says why the kill was not run, if it was not.
	KillSkipped string `json:"kill_skipped,omitempty"`
}

// JoinIdeal is M/(N+1): the shards the joining member should take.
func (g ShardGroup) JoinIdeal() float64 { return float64(g.M) / float64(g.N+1) }

// Idle is the idle cost of one library.
type Idle struct {
	// Lib is the library: leasehold or native.
	Lib string `json:"lib"`
	// Peer is the library's display name.
	Peer string `json:"peer"`
	// LeaderPerMin is the requests per minute of an idle leader alone.
	LeaderPerMin float64 `json:"leader_requests_per_min"`
	// CandidatePerMin is the extra requests per minute of one waiting
	// candidate.
	CandidatePerMin float64 `json:"candidate_requests_per_min"`
}

// SlowLink is one library's slow-link run: three candidates, each on a
// link of its own; each cycle delays the leader's store→client direction.
type SlowLink struct {
	// Lib is the library: leasehold or native.
	Lib string `json:"lib"`
	// Peer is the library's display name.
	Peer string `json:"peer"`
	// LatencyMs is the delay added (TTL/3) and HoldSeconds how long.
	LatencyMs   float64 `json:"latency_ms"`
	HoldSeconds float64 `json:"hold_s"`
	// BoundMs is leasehold's bound on reply latency at the defaults,
	// (TTL − SafetyMargin − ClockDrift×TTL)/2.
	BoundMs float64 `json:"bound_ms"`
	// Cycles were run; Losses is how many lost leadership.
	Cycles int `json:"cycles"`
	Losses int `json:"losses"`
	// LossAfterMs is, per loss, the time from the delay's start to the
	// first sign of it (the library's own signal or a successor leading).
	LossAfterMs []float64 `json:"loss_after_ms,omitempty"`
	// TakeoverMs is, per loss with both seen, the time from the leader's
	// own signal to a successor leading.
	TakeoverMs []float64 `json:"takeover_ms,omitempty"`
}

// Policy is the policies scenario's hand-off run at one number of waiters: leasehold's
// planned handover and graceful hand-off, and the store-native peer's
// graceful hand-off, measured in turn, with the store's write round trip.
type Policy struct {
	// N is the number of waiting candidates.
	N int `json:"waiters"`
	// Peer is the native peer's display name.
	Peer string `json:"peer"`
	// Planned is Leadership.HandOver to a waiter drawn at random, until
	// it leads.
	Planned Latency `json:"planned"`
	// Graceful is leasehold's Resign until the next in line leads.
	Graceful Latency `json:"graceful"`
	// Native is the peer's release until the next in line leads.
	Native Latency `json:"native"`
	// RoundTrip is the store's write round trip, one before each hand-off.
	RoundTrip Latency `json:"round_trip"`
	// Misses counts planned handovers another candidate won.
	Misses int `json:"misses"`
	// PlannedReq, GracefulReq and NativeReq are store requests per
	// hand-off cycle, net of session renewals and the background.
	PlannedReq  float64 `json:"planned_requests"`
	GracefulReq float64 `json:"graceful_requests"`
	NativeReq   float64 `json:"native_requests"`
}

// WriteJSON writes r to dir/results.json.
func WriteJSON(dir string, r *Results) error {
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "results.json"), b, 0o644)
}

// ReadJSON reads a results.json that WriteJSON wrote.
func ReadJSON(path string) (*Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}
