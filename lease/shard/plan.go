package shard

// phase is what this member has of a shard.
type phase uint8

const (
	idle        phase = iota // nothing
	campaigning              // a campaign runs (or waits to be retried)
	held                     // it holds the shard's leadership
)

// view is what the group's decisions depend on: the owners, and what this
// member has of each shard.
type view struct {
	me      string
	leaving bool // ending its membership: hand over at once, campaign for nothing
	owners
	have   []phase        // per shard
	moving map[int]string // shards being handed over, to whom
}

// plan is what to do about the view: start or cancel campaigns, start
// or stop handovers, resign.
type plan struct {
	campaign, cancel []int
	move             map[int]string // shard: hand it over to this member
	stop             []int          // stop the handover under way (its target changed)
	resign           []int          // leaving with no one to hand over to
}

// decide returns the plan for v. A shard is campaigned for once both
// assignments give it to this member, held or not by another: a campaign
// waits in line. So a member starting a group alone takes only the shards
// it keeps once the others that join within Settle have settled, rather
// than all of them, to hand most over later. A campaign is cancelled once
// neither assignment gives the shard to this member. A
// held shard moves to its owner once both assignments agree on it (its
// owner and every member its assignment depends on have settled), or at
// once when leaving; leaving with no owner to move to, it is resigned.
func decide(v view) plan {
	p := plan{move: map[int]string{}}
	for s, h := range v.have {
		mine := !v.leaving && v.all[s] == v.me && v.settled[s] == v.me
		maybe := !v.leaving && (v.all[s] == v.me || v.settled[s] == v.me)
		switch {
		case h == idle && mine:
			p.campaign = append(p.campaign, s)
		case h == campaigning && !maybe:
			p.cancel = append(p.cancel, s)
		case h == held:
			to := v.target(s)
			cur, moving := v.moving[s]
			switch {
			case moving && cur != to:
				p.stop = append(p.stop, s)
			case !moving && to != "":
				p.move[s] = to
			case !moving && v.leaving:
				p.resign = append(p.resign, s)
			}
		}
	}
	return p
}

// target is the member a held shard s goes to, or "" if it stays.
func (v view) target(s int) string {
	owner := v.all[s]
	if owner == "" || owner == v.me || (!v.leaving && v.settled[s] != owner) {
		return ""
	}
	return owner
}
