package shard

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/lease"
)

// Bounds of Options.Shards and Options.Weight.
const (
	// MaxShards is the most shards a group may have.
	MaxShards = 65536
	// MaxWeight is the largest Options.Weight.
	MaxWeight = 1000
)

// Prefer names the label a shard prefers its owner to carry: key and
// value. Among the members whose share allows it, a shard goes to one
// that carries the label; an empty key means no preference. It must give
// the same answer on every member of the group.
type Prefer func(shard int) (key, value string)

// Options configure a member of a group (Join). The zero value of every
// field but Shards means its default.
type Options struct {
	// Shards is the number of shards of the group, 1 to MaxShards; every
	// member of a group must give the same (a member that does not is
	// left out by the others, see Join). Required.
	Shards int

	// Weight is this member's relative share of the shards: with total
	// weight W, a member of weight w owns ⌊Shards×w/W⌋ or ⌈Shards×w/W⌉ of
	// them once the group has settled. 1 to MaxWeight; default 1.
	Weight int

	// Prefer, if set, gives each shard's preferred owner label (see
	// Prefer). Default none.
	Prefer Prefer

	// Settle is how long a member must have been in the group's members
	// roster, by this member's clock from when it first saw it, before
	// this member moves a shard it holds to it, and how long a change of
	// the assignment must have held for the move: a member that joins and
	// leaves within Settle moves no held shard. A member campaigns for a
	// shard only once both assignments give it the shard, so a group
	// started cold takes its first shards after Settle, each from its
	// final owner. Default the elector's TTL; at least 0.
	Settle time.Duration

	// Logger receives the group's logs: each shard moved by this member
	// (group, shard, from, to, token) at Info, members left out at Error,
	// retried failures at Warn; at Debug each members roster (the members,
	// those seen anew and those gone) and each plan (the shards it
	// campaigns for, cancels, moves, stops moving and resigns). Default
	// the elector's Options.Logger.
	Logger *slog.Logger

	// Metrics receives the group's measurements (see Metrics). Default
	// none.
	Metrics Metrics
}

// withDefaults returns o with the defaults filled in from e.
func (o Options) withDefaults(e *lease.LeaseElector) Options {
	eo := e.Options()
	if o.Weight == 0 {
		o.Weight = 1
	}
	if o.Settle == 0 {
		o.Settle = eo.TTL
	}
	if o.Logger == nil {
		o.Logger = eo.Logger
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Metrics == nil {
		o.Metrics = noMetrics{}
	}
	return o
}

// validate checks o, before defaults, and the group's names.
func (o Options) validate(group string) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("shard: join %q: %s: %w", group, fmt.Sprintf(format, args...), lease.ErrInvalidOption)
	}
	switch {
	case o.Shards < 1 || o.Shards > MaxShards:
		return bad("Shards %d must be 1 to %d", o.Shards, MaxShards)
	case o.Weight < 0 || o.Weight > MaxWeight:
		return bad("Weight %d must be 1 to %d (0: 1)", o.Weight, MaxWeight)
	case o.Settle < 0:
		return bad("Settle %v must be at least 0 (0: the elector's TTL)", o.Settle)
	}
	for _, name := range []string{MembersElection(group), Election(group, o.Shards-1, o.Shards)} {
		if err := backends.ValidateElection(name); err != nil {
			return bad("group name: election %q: %v", name, err)
		}
	}
	return nil
}
