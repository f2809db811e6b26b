package history

// Kind says what an Event records.
type Kind string

// Event kinds.
const (
	// Lead: Candidate began to believe it leads, with Token.
	Lead Kind = "lead"
	// Unlead: Candidate stopped acting on its leadership with Token.
	Unlead Kind = "unlead"
	// Write: Candidate sent a write with Token at Sent; the Guard judged
	// it and it was Accepted or not. At is when the answer came. A
	// candidate that checks its leadership before a write reads Sent just
	// before the check, so a write the check let through is dated no
	// later than the check.
	Write Kind = "write"
	// Fault: the fault named Fault began, aimed at Candidate if any.
	Fault Kind = "fault"
	// Heal: the fault named Fault ended.
	Heal Kind = "heal"
	// Pause: Candidate's process was stopped (SIGSTOP).
	Pause Kind = "pause"
	// Crash: Candidate's process was killed; its leadership, if any,
	// ends here.
	Crash Kind = "crash"
	// Join: Candidate, a member of a shard group, was started: it counts
	// as live for the balance check (CheckShards) from here.
	Join Kind = "join"
	// Leave: Candidate, a member of a shard group, was asked to leave
	// it gracefully: it no longer counts as live from here.
	Leave Kind = "leave"
)

// Guard kinds of a Write.
const (
	// GuardFence: a resource protected by a fencing.Guard.
	GuardFence = "fence"
	// GuardStore: a guarded store write (backends.Driver.GuardedPut).
	GuardStore = "store"
)

// Event is one entry of a history; see Kind for which fields each kind
// uses.
type Event struct {
	Kind      Kind   `json:"kind"`                // what happened
	At        Time   `json:"at"`                  // when it was recorded
	Candidate string `json:"candidate,omitempty"` // who did it, or was its target
	Token     uint64 `json:"token,omitempty"`     // Lead, Unlead, Write: the term's token
	Guard     string `json:"guard,omitempty"`     // Write: GuardFence or GuardStore
	Sent      Time   `json:"sent,omitempty"`      // Write: when it was sent
	Accepted  bool   `json:"accepted,omitempty"`  // Write: whether the guard accepted it
	Fault     string `json:"fault,omitempty"`     // Fault, Heal: the fault's name
	// Shard names the shard of a group whose leadership a Lead, Unlead
	// or Write is about (CheckShards); empty in an election's history,
	// and on the events that concern every shard (Fault, Heal, Pause,
	// Crash, Join, Leave).
	Shard string `json:"shard,omitempty"`
}
