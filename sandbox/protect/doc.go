// Package protect lists the paths inside a writable workspace that stay
// read-only (what git runs from the repository, hook runners' config,
// shell rc files, agent and editor config, and the files that steer
// agents and tools: steering.go) and the secret files that
// commands never read, and reserves the protected names that do not
// exist yet so a sandbox can mount over them and keep them uncreatable.
//
// The sequence, per workspace and before every command (Scan):
//
//  1. For lists the protected paths: Names, the steering files
//     (steering.go: instruction files, dev containers, version managers'
//     and editors' project config), the root's .gatehouse*
//     entries, what git runs or reads as configuration from the
//     repository (gitrepo.go: hooks, config, includes, core.hooksPath,
//     submodules' and linked worktrees' git dirs, gitconfig.go reading
//     the configs), the hook runners' config found there
//     (hookrunners.go), and a linked worktree's git dirs outside the
//     workspace (linked.go). Each is sorted into Set.Existing (kept
//     read-only), Set.Missing (kept uncreatable) or Set.Writable.
//  2. Secrets.Find walks the workspace for files on the secret list
//     (secrets.go), reusing each unchanged directory's listing
//     (finder.go), and leaves out what the person's Exposure exposes.
//  3. The backend mounts from the Workspace: protected paths read-only,
//     Hidden covered, and the parents (HiddenParents, ProtectedParents,
//     PinnedParents) pinned so nothing can be moved away beneath them.
//     Where a missing name needs something to mount over, Placeholders
//     reserves one on the host and releases it when the last run holding
//     it is over (placeholders.go).
package protect
