package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// methodText is how the benchmark measures; the page adds the native
// peers and what the sample counts of its runs mean.
const methodText = `
## Method

` + "`make bench`" + ` (module ` + "`bench/`" + `) runs leasehold side by side with each store's own
client, the *native peer*, and valkeyrie's lock, in one run, against the stores that the
machine line above names. On a shared 2-core machine absolute times move from run to run;
ratios between series of one run move much less, and every table gives them: to the native
peer and to the store's own round trip.{turns}

- *Store round trip*: *physical*, a writer idles 150 ms, writes a key, and a watcher on another
  connection is notified; *round trip*, one write, taken before each hand-off of the planned
  handover series.
- *Graceful hand-off*: two candidates; the leader idles 150 ms after it won, then releases;
  from the release call to the successor's campaign returning. *Settled*: the successor waited
  150 ms; *fresh*: 0–100 ms. In brackets, the 90% bootstrap interval of the p99 ratio (2,000
  redraws of both series): how closely one run of that size places it.
- *Crash failover*: the leader, a child process, is killed with SIGKILL; until its successor
  leads. The store frees the key only when the session's TTL runs out.{crash}
- *Planned handover*: ` + "`Leadership.HandOver`" + ` to a waiter drawn at random among N, in turn with
  leasehold's ` + "`Resign`" + ` and the native peer's release with the same N waiters.
- *Elections per process*: M elections on one elector (one session, one client): the time to win
  all, live heap growth after GC per election, goroutines and connections to the store (before
  the elector was made), and the store's requests while all are held.
- *At rest*: store requests per minute of an idle leader alone, then the extra of one waiting
  candidate, both libraries at the same TTL.
- *Herd*: N electors, each with its own session, wait on one election; from a resign to the
  successor leading, with store requests and watch notifications per failover net of the
  background keep-alives. *queue* (the default): each waiter watches the one ahead; *key*
  (` + "`lease.WaitKey`" + `): every waiter watches the leader's key. Consul's herds stop at
  N = 100: an agent serves a client address 200 connections, one per blocking query.
- *Shards*: a ` + "`lease/shard`" + ` group of N members (each its own elector, client and session) and
  M shards: the cold start until balanced; one more member joining (shards moved, against the
  ideal M/(N+1), and the longest a shard went unowned); one member cut off without ` + "`Leave`" + `
  (until its shards are owned again, then balanced).
- *Slow link*: each cycle delays the leader's store→client direction by TTL/3 for 2.5×TTL;
  a loss is the library ending leadership or another candidate leading.{slow}
- *Requests* are the store's counters: etcd's ` + "`/metrics`" + `, ZooKeeper's ` + "`mntr`" + `, Consul's HTTP
  requests from the benchmark's clients. Per hand-off they are net of session renewals (etcd and
  Consul tell them; ZooKeeper's pings cannot be told apart) and of the background rate measured
  while all waited.
`

// method renders the method with the native peers and the confidence of
// a p99 at the sample count of the runs' hand-offs.
func method(runs []*Results) string {
	var b strings.Builder
	b.WriteString(strings.NewReplacer("{crash}", atOnce(runs, "crash", hasCrash,
		" A store's samples ran at once,\n  each on its own election, started 0–1 s apart at random."),
		"{slow}", atOnce(runs, "slowlink", hasSlowLink, " A store's cycles ran at once,\n  each on its own election and links."),
		"{turns}", tookTurns(runs, "\nThe three stores take turns on the machine: one measures (a write, a round trip, a hand-off, a\nherd) while the others pause, so only their pauses overlap.")).Replace(methodText))
	if p := peers(runs); len(p) > 0 {
		fmt.Fprintf(&b, "\nNative peers: %s.\n", strings.Join(p, "; "))
	}
	if n := handoffSamples(runs); n > 0 {
		b.WriteString("\n" + confidence(n))
		if m := plannedSamples(runs); m > 0 && m < n {
			b.WriteString(confidenceOf("The planned handover's series", m))
		}
	}
	return b.String()
}

// atOnce returns text if the run the page shows for scenario ran its
// samples at once: runs that record each scenario's time (Store.Seconds)
// do; the runs before them ran one sample after another.
func atOnce(runs []*Results, scenario string, has func(*Store) bool, text string) string {
	r := pick(runs, scenario, has)
	if r == nil || !slices.ContainsFunc(r.Stores, func(s *Store) bool { return len(s.Seconds) > 0 }) {
		return ""
	}
	return text
}

// tookTurns returns text if the run the page shows for the graceful
// hand-off took turns (Results.Turns).
func tookTurns(runs []*Results, text string) string {
	if r := pick(runs, "handoff", hasHandoff); r == nil || !r.Turns {
		return ""
	}
	return text
}

// peers names each store's native peer, as the runs name it.
func peers(runs []*Results) []string {
	var out []string
	for _, r := range runs {
		for _, s := range r.Stores {
			for _, h := range s.Handoff {
				if p := s.Name + ": " + h.Peer; h.Lib == "native" && !slices.Contains(out, p) {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// handoffSamples is the largest sample count of a graceful or planned
// hand-off series in runs.
func handoffSamples(runs []*Results) int {
	n := 0
	for _, r := range runs {
		for _, s := range r.Stores {
			for _, h := range s.Handoff {
				n = max(n, h.N)
			}
			for _, p := range s.Policies {
				n = max(n, p.Planned.N, p.Graceful.N)
			}
		}
	}
	return n
}

// plannedSamples is the largest sample count of a series of the planned
// handover run the page shows.
func plannedSamples(runs []*Results) int {
	n := 0
	if r := pick(runs, "policies", hasPolicies); r != nil {
		for _, s := range r.Stores {
			for _, p := range s.Policies {
				n = max(n, p.Planned.N, p.Graceful.N, p.Native.N)
			}
		}
	}
	return n
}

// confidence says what a p99 of n samples (nearest rank) tells: which
// sample it is, and, from the binomial distribution of the samples below
// the true p99 (no assumption on the latencies' own distribution), the
// lowest order statistic below it with 95% confidence and how likely the
// true p99 lies between that sample and the largest.
func confidence(n int) string {
	rank, lo, between, above := p99Spread(n)
	return fmt.Sprintf("A series has %d samples at most (crashes and herds far fewer: see n). Its p99 is the nearest rank, "+
		"the %s largest of %d; the max is the largest. The true p99 lies between the %s largest sample and the largest with "+
		"%.0f%% probability, and above the largest with %.0f%%: read a p99 with its max beside it, and take two p99s as "+
		"different only when they differ by more than that spread.\n",
		n, ordinal(rank), n, ordinal(lo), 100*between, 100*above)
}

// confidenceOf says what confidence says for the p99 of the n samples of
// the series named what, in one sentence.
func confidenceOf(what string, n int) string {
	rank, lo, between, above := p99Spread(n)
	return fmt.Sprintf("%s have %d samples: a p99 is the %s largest, and the true p99 lies between the %s largest sample "+
		"and the largest with %.0f%% probability, above the largest with %.0f%%.\n", what, n, ordinal(rank), ordinal(lo), 100*between, 100*above)
}

// p99Spread returns, for n samples, the p99's rank from the largest (1:
// the largest), the rank lo of the lowest sample below the true p99 with
// 95% confidence, the probability that the true p99 lies between that
// sample and the largest, and that it lies above the largest.
func p99Spread(n int) (rank, lo int, between, above float64) {
	k := int(math.Ceil(0.99 * float64(n)))
	low := n
	for low > 1 && binomAtLeast(n, low, 0.99) < 0.95 {
		low--
	}
	above = binomAtLeast(n, n, 0.99)
	return n - k + 1, n - low + 1, binomAtLeast(n, low, 0.99) - above, above
}

// binomAtLeast is P(X ≥ k) for X ~ Binomial(n, p).
func binomAtLeast(n, k int, p float64) float64 {
	sum := 0.0
	for i := k; i <= n; i++ {
		lg, _ := math.Lgamma(float64(n + 1))
		li, _ := math.Lgamma(float64(i + 1))
		lr, _ := math.Lgamma(float64(n - i + 1))
		sum += math.Exp(lg - li - lr + float64(i)*math.Log(p) + float64(n-i)*math.Log1p(-p))
	}
	return sum
}

// ordinal renders 1 as "1st", 2 as "2nd", and so on.
func ordinal(i int) string {
	suffix := "th"
	switch {
	case i%100 >= 11 && i%100 <= 13:
	case i%10 == 1:
		suffix = "st"
	case i%10 == 2:
		suffix = "nd"
	case i%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", i, suffix)
}
