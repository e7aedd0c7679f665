// Package effect turns a staged run into a change set and lands it. A
// mutating command runs against an overlay of the workspace: the workspace
// is the lower layer and every write goes to an upper layer in the data
// dir. When the command ends, the upper layer is the exact change set,
// read without walking the workspace; Gatehouse then applies it or
// discards it, so the workspace is only ever touched by an allowed effect.
//
// The sequence, as backend/call drives it after a staged run:
//
//  1. Read (upper.go) lists the upper layer's changes against the lower:
//     creations, modifications, deletions (overlay whiteouts), mode-only
//     copy-ups, into a Set per workspace; ChangeSets holds a call's.
//  2. KeepOut (keepout.go) takes out protected paths (git hooks and
//     config, editor and agent config, .envrc), which never land.
//  3. PolicyEffect (judge.go) describes the sets for the policy's effect
//     rules: counts of deleted and emptied files (git-ignored outputs
//     aside), how many of the tracked files are lost (tracked.go, from the
//     index as it was: gitindex.go), tracked directories gone, links
//     leading out, what of the repository's own store in .git is deleted
//     rather than rewritten by git's housekeeping (gitdir.go, with pack
//     indexes read by packidx.go), and git history rewritten (gitrefs.go).
//     Layers (layers.go) reads each workspace before and after the run.
//  4. When the rules hold the set, the card shows each change (card.go)
//     and a diff of the text files it changed.
//  5. Apply (apply.go) lands an allowed set change by change, keeping the
//     person's own edits made meanwhile (Conflicts), with a journal
//     (journal.go) so Recover finishes an apply a crash interrupted.
//
// A run that could not be staged is judged from its checkpoints' diff by
// the same PolicyEffect; only the reading differs (its before comes from
// the checkpoint taken first, ChangeSets.Priors).
package effect
