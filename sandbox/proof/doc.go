// Package proof is the doctor battery: real processes that try to break
// out of a backend (read a canary in $HOME, write outside the workspace
// and into what git or a hook runner runs on the host, reach 127.0.0.1
// over TCP, UDP, DNS or a raw socket, with no network and beside a proxy,
// read host and workspace secrets, fork-bomb, outlive a kill) and a row per
// attempt saying whether the OS refused.
// `gatehouse doctor` and the Go tests run the same checks.
//
// The sequence of Run: a scratch directory with a workspace (a git
// repository whose hooks path is husky's, with planted secrets) and a
// directory outside it; one session of the backend on that workspace,
// limited to ForkBombLimit processes; then each check in the order of
// Checks, each running real commands in the session (or a session of
// its own) and turning what the OS did into a Row: Pass when it refused,
// Fail when the escape worked, Unavailable when the check cannot apply.
// The session, the processes and the scratch directory are removed
// whatever happened. checks.go holds the file and process checks,
// netchecks.go the network ones, protect_checks.go the protected names,
// and toolchain.go the person's toolchains.
package proof
