// Package history records what the candidates of an election believed and
// did during a test, and checks the record for safety and liveness
// violations. It is shared test code, importable by any suite.
//
// Candidates may run in one process or many. Every event carries a Time
// read from CLOCK_MONOTONIC, which all processes of one machine share, so
// histories written by separate processes (one JSON-lines file each, see
// Recorder) merge into one timeline (ReadFiles).
//
// # What is recorded
//
// A candidate records Lead when it begins to believe it leads (its
// campaign returned, with the term's token) and Unlead when it has stopped
// acting on that belief (its writer has stopped). Each write to a
// protected resource is a Write event: the token it carried, which guard
// judged it (GuardFence for a fencing.Guard, GuardStore for a guarded
// store write), when it was sent and whether it was accepted. The fault
// driver records Fault and Heal around each fault, and Pause, Crash for
// candidates it stops or kills.
//
// # What is checked
//
// Check verifies, over the merged history:
//   - (a) tokens strictly increase from one leadership to the next, in the
//     order the leaderships began;
//   - (b) no two believed-leadership intervals overlap by more than
//     Config.Drift; a candidate's interval counts only until the candidate
//     was paused (SIGSTOP), since no lease can stop a paused process;
//   - (c) no guard accepted a stale token: a fenced write sent after a
//     write with a higher token was accepted by the same guard kind, or a
//     guarded store write sent after a higher token's leadership began;
//   - (d) after each Heal, some candidate leads within Config.Recovery.
//   - (e) no candidate sent a write, while it believed it led (before its
//     Unlead, paused or not), after a leadership with a higher token had
//     begun: its check before the write (lease.Leadership.Valid) said yes
//     too late. Unlike (b), this counts what a paused leader did after it
//     was resumed.
//
// Writes that were in flight when a successor took over are not stale by
// this definition: neither guard can reject what reached it first.
package history
