// Package initproc is the sandbox helper: the hidden `gatehouse
// __sandbox-init` entry point (and the static gatehouse-sandbox-init
// binary), which confines a command so the daemon itself is never
// restricted. Main picks one of seven roles from its arguments.
//
// A session's zygote (zygote_linux.go), under bwrap. The daemon starts
// bwrap once per session layout with a Config carrying Zygote and
// Layout. The zygote:
//
//  1. makes the layout from the host's root bwrap bound, then detaches
//     that root (makeLayout);
//  2. makes every mount private and clears the mounts below /proc, so
//     each run can mount a procfs of its own, and notes which mounts
//     each fresh directory (/tmp, $HOME) keeps (readyForRuns);
//  3. starts a pool of network namespaces and a reaper that gives a
//     namespace back once its run's first process is reaped;
//  4. reads SpawnRequests on its control socket, each with the run's
//     stdin, stdout, stderr, request socket and status pipe (and its
//     cgroup.procs), and for each clones the helper again as the run's
//     first process (callInit) in a new user, mount, PID, IPC and UTS
//     namespace, and a pooled network namespace unless the run shares the
//     host's; it answers with that process's pidfd. When the daemon closes
//     the socket the zygote exits, and bwrap ends every run with it.
//
// A run's first process, its PID 1 (callinit_linux.go, started with
// CallInitArg). Before the call arrives it:
//
//  1. hides itself from the run (not dumpable) and joins the run's
//     cgroup, then a cgroup namespace rooted there;
//  2. mounts the run's /proc (its covers read-only) and /dev/pts, renews
//     the fresh directories and brings up the loopback (setupCall);
//  3. warms the request decoder, makes the empty tree hidden paths are
//     covered with, empties its bounding set and assembles the seccomp
//     programs (notify.Warm).
//
// Then it reads the Request on its request socket and starts the target
// (startTarget): the proxy's listening socket goes back on that socket,
// the Request's mounts are made (overlays of a staged run, read-only
// workspaces, pins, protected paths, hidden secrets), the creation guard's
// thread starts when names may not be created, rlimits are set, the
// thread's capabilities are dropped with no_new_privs set, the socket
// filter and then the guard's filter are installed on the forking
// thread, the daemon is told the target starts, and the target is forked
// in a session of its own; the first process then raises its own soft
// process limit into the reserve the target's hard one leaves it
// (nproc_linux.go), so a run that fills its limit leaves it room for a
// thread. The first process then stays to reap: when
// the target exits it kills every other process of the PID namespace,
// and writes the target's Status once all are gone.
//
// A Landlock session's zygote (landlockzygote_linux.go, Config.Zygote
// with Landlock), started by the daemon once per session layout with
// the layout's rules. It reads LandlockSpawns on its control socket (the
// run's home and temporary directory, with the descriptors a SpawnRequest
// carries) and starts the helper again for each as the run's supervisor,
// under the rules with those two directories writable, answering with
// its pidfd. It is the supervisors' subreaper: whatever comes to it from
// a supervisor that died, it kills. It is never confined.
//
// A Landlock run's supervisor that forks its target (forktarget_linux.go,
// Config.ForkTarget), which a Landlock zygote starts. It joins the run's
// cgroup, becomes the run's subreaper, hides itself from the run, and
// confines one thread of its own: the rules while it waits, then the
// Request's network layer, rlimits, the capability drop and the socket
// filter (whose connects its other threads decide). That thread forks the
// target, takes the supervisor out of the run's cgroup back to the one it
// came from (runcgroup_linux.go) and into the process limit's reserve, and
// exits, so no thread of the supervisor stays in the run's domain and
// none counts against the run's limits; the rest is a supervising
// helper's (watchRun).
//
// A supervising helper (main_linux.go, Config.Supervise), started by
// the none backend, a whole agent on Landlock, or by a container's exec. It
// becomes the run's subreaper, reads a call over Config.Connect in a
// container, starts the helper again as the target's stage with sockets
// on which that stage hands back the connect filter (a proxy in the
// host's namespace) or the creation guard's filter, serves them (package
// notify), and on SIGTERM, a hangup or the target's exit kills what is
// left and reports the Status.
//
// The target's stage (confineAndExec) applies Landlock, reads a Request
// if one was sent ahead, confines the network early (Landlock's port
// rule, or the proxy's socket), makes a container call's mounts in a user
// namespace of its own (nest_linux.go), sets rlimits, drops capabilities,
// enters the working directory, installs the socket filter and then the
// guard's, and execs the target.
//
// A container's first process (Config.Idle) only stays up and reaps.
package initproc
