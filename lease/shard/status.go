package shard

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/lease/shard/internal/assign"
)

// statusReads is how many leader reads ReadStatus keeps in flight.
const statusReads = 32

// Status is a group as one reading of the store saw it: its members and who
// owns each shard.
type Status struct {
	// Group is the group's name.
	Group string
	// Shards is the group's shard count.
	Shards int
	// Members are the live members in the members roster, by identity.
	Members []MemberStatus
	// Owner is, for each shard, the identity of its leader; empty for a
	// shard without one.
	Owner []string
	// Refused are the records of the members roster that the members
	// leave out (see Join), by identity, with the reason.
	Refused map[string]string
}

// MemberStatus is one member of a group as Status read it.
type MemberStatus struct {
	// Identity is the member's elector identity.
	Identity string `json:"identity"`
	// Weight is the member's Options.Weight (WeightLabel).
	Weight int `json:"weight"`
	// Labels are the member's record's labels.
	Labels map[string]string `json:"labels,omitempty"`
	// Owns is how many shards it leads.
	Owns int `json:"leads"`
	// Quota is how many shards it owns once the group has settled, as
	// the members compute it without shard preferences (Options.Prefer
	// is not in the store): its weighted share, rounded down or up.
	Quota int `json:"settled"`
}

// Unowned returns the shards without a leader, in order.
func (s Status) Unowned() []int {
	var out []int
	for i, o := range s.Owner {
		if o == "" {
			out = append(out, i)
		}
	}
	return out
}

// Strangers returns the leaders that are not members, each with how many
// shards it leads: a member that has left and still holds shards it is
// handing over, or a candidate that is not part of the group.
func (s Status) Strangers() map[string]int {
	out := map[string]int{}
	for _, o := range s.Owner {
		if o != "" && !slices.ContainsFunc(s.Members, func(m MemberStatus) bool { return m.Identity == o }) {
			out[o]++
		}
	}
	return out
}

// ReadStatus reads group's members and the leader of each of its shards,
// with one roster read and one leader read per shard, a few at a time.
// shards is the group's shard count; 0 takes it from the members' records
// (ShardsLabel), and fails if there are none or they disagree. The
// members are those the group's members count (see Join); the other
// records are in Refused.
// A shards outside 0 to MaxShards fails with ErrInvalidOption before any
// read.
func ReadStatus(ctx context.Context, e *lease.LeaseElector, group string, shards int) (Status, error) {
	if shards < 0 || shards > MaxShards {
		return Status{}, badShards(group, shards)
	}
	cs, err := e.Candidates(ctx, MembersElection(group))
	if err != nil {
		return Status{}, fmt.Errorf("shard: status of %q: %w", group, err)
	}
	if shards == 0 {
		if shards, err = agreedShards(group, cs); err != nil {
			return Status{}, err
		}
	}
	if shards < 1 || shards > MaxShards {
		return Status{}, badShards(group, shards)
	}
	ms, refused := parseMembers(cs, shards)
	st := Status{Group: group, Shards: shards, Owner: make([]string, shards)}
	for _, r := range refused {
		if st.Refused == nil {
			st.Refused = map[string]string{}
		}
		st.Refused[r.identity] = r.why
	}
	if err := readOwners(ctx, e, group, st.Owner); err != nil {
		return Status{}, err
	}
	slices.SortFunc(ms, func(a, b assign.Member) int { return strings.Compare(a.ID, b.ID) })
	for _, m := range ms {
		st.Members = append(st.Members, MemberStatus{Identity: m.ID, Weight: m.Weight, Labels: m.Labels})
	}
	for _, i := range assign.Assign(group, shards, ms, nil) {
		if i >= 0 {
			st.Members[i].Quota++
		}
	}
	for _, o := range st.Owner {
		if i := slices.IndexFunc(st.Members, func(m MemberStatus) bool { return m.Identity == o }); i >= 0 {
			st.Members[i].Owns++
		}
	}
	return st, nil
}

// agreedShards returns the shard count that the records of the members
// roster name, if they all name the same.
func agreedShards(group string, cs []lease.Candidate) (int, error) {
	n := 0
	for _, c := range cs {
		v, ok := c.Labels[ShardsLabel]
		if c.Requester || c.Superseded || !ok {
			continue
		}
		m, err := strconv.Atoi(v)
		switch {
		case err != nil:
			continue
		case n != 0 && m != n:
			return 0, fmt.Errorf("shard: status of %q: members disagree on the shard count (%d, %d): name it", group, n, m)
		}
		n = m
	}
	if n == 0 {
		return 0, fmt.Errorf("shard: status of %q: no members to take the shard count from: name it", group)
	}
	return n, nil
}

// readOwners reads the leader of each shard into owner, statusReads at a
// time; the first error other than ErrNoLeader ends it.
func readOwners(ctx context.Context, e *lease.LeaseElector, group string, owner []string) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(statusReads, len(owner)) {
		wg.Go(func() {
			for s := range next {
				info, err := e.Leader(ctx, Election(group, s, len(owner)))
				if err != nil && !errors.Is(err, lease.ErrNoLeader) {
					cancel(fmt.Errorf("shard: status of %q: shard %d: %w", group, s, err))
					continue
				}
				owner[s] = info.Identity
			}
		})
	}
	for s := range owner {
		if ctx.Err() != nil {
			break
		}
		next <- s
	}
	close(next)
	wg.Wait()
	return context.Cause(ctx)
}

// badShards is ReadStatus's error for a shard count out of range.
func badShards(group string, shards int) error {
	return fmt.Errorf("shard: status of %q: %d shards: want 1 to %d: %w", group, shards, MaxShards, lease.ErrInvalidOption)
}
