// Package bwrap confines runs with bubblewrap: fresh namespaces (user,
// PID, network, IPC, UTS, cgroup), system directories read-only, the
// workspace read-write except its protected paths, the session's /tmp
// (SessionSpec.Tmp; a private one without it) and a fresh $HOME. The default backend on Linux.
//
// The sequence. Open starts a warm session (sandbox.OpenWarmSession)
// whose Warmer is a sessionWarmer:
//
//  1. For each prepared run the session asks for its layout: bwrap's
//     arguments (Args: namespaces, the host's root at initproc.HostRoot,
//     the skeleton) and the helper's Config with the layout's mounts
//     (Mounts), plus whether the run shares the host's network.
//  2. The first sandbox of a layout starts its zygote (zygote.go): one
//     bwrap running the helper as a zygote, which makes the layout and
//     then waits on a control socket. A zygote of a layout no longer in
//     use stops once its last sandbox is over.
//  3. Each sandbox is started ahead of its call (Start): launch asks the
//     zygote, through spawner, to clone the run's first process with the
//     sandbox's descriptors, and that process waits for its Request.
//  4. When the call comes (started.Run), the Request is built: the run's
//     environment and network, the staging overlays (stage.go), and the
//     workspace's protected paths, uncreatable names, pins and hidden
//     secrets scanned now (workspace.go). launch hands it to the waiting
//     process, serves the proxy, and collects the output and Status.
//  5. Placeholders made for the call are released before Run returns,
//     and a run that could not stage says so (sandbox.ErrCannotStage).
package bwrap
