// Package notify holds the seccomp filters a sandboxed run carries and
// the two supervisors that answer their user notifications, in a run's
// first process or its supervising helper.
//
// The socket filter (sockets_linux.go) decides which sockets a run may
// create. With a proxy in the host's namespace, every connect(2) stops at
// a notification instead: the target's stage installs the filter last
// and hands its listener and the proxy's port over a socket
// (HandConnects); the supervisor (ServeConnects) reads each call's
// address from the run's memory, checks the call still waits, and makes
// the connect itself from its own copy only when the address is the
// proxy's, or a listener of the run's own. bind(2) and listen(2) stop
// there too: the supervisor makes them itself and ties each listener to
// the loopback device (listen_linux.go), so what a run serves stays off
// the network. netcaller_linux.go is what the three share: the caller's
// pidfd, its address read once, its socket taken over.
//
// The creation guard (guard*_linux.go) keeps a run that writes the
// workspace itself from creating protected names. StartGuard opens the
// parent of each name and starts a thread with its own working directory
// and umask (and no capabilities when the target holds none); the
// guard's filter is installed on the thread that starts the target
// (InstallGuardFilter, or HandGuard in a stage that hands its listener
// to the supervisor, who passes it to Receive); Serve gives the
// listener to the guard's thread. For each notification the thread reads
// the call's arguments from the caller's memory once, checks the call
// still waits, resolves the caller's path one component at a time from
// the caller's root or directory, refuses a protected entry with EACCES,
// and otherwise makes the entry itself and answers with the result (an
// open's descriptor placed in the caller). An open that would wait for
// the other end of a FIFO waits in a pending list, retried, not on the
// thread.
//
// Both read notifications, validate them and answer through
// notif_linux.go; both programs are written with the assembler in
// bpf_linux.go.
package notify
