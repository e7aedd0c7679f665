package agentbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc/caps"
)

// The sandbox without bubblewrap: its first process is started in new
// user, mount, PID, network, IPC, UTS and cgroup namespaces, and makes
// the file system itself (initproc.MakeRoot) from the same mount list
// bubblewrap is given (mounts), with the new mount API. bubblewrap read
// the whole mount table again after each of its binds, and cost about
// 7 ms over a bare exec with this list; the namespaces alone cost under
// 1 ms. bubblewrap remains where this process may not make a user
// namespace with capabilities in it (ownNamespaces).

// rootFD is the descriptor the first process reads its Root from.
const rootFD = handoffFD + 1

// rootOf is the Root the first process makes for s: mounts, in order,
// with the hidden directories made read-only last (after what is shown
// in them has its mount point), as bubblewrap's arguments say it.
func rootOf(s Spec, empty, info string, covers map[string]string) initproc.Root {
	var steps, remount []initproc.RootStep
	add := func(k initproc.RootKind, src, dst string, try bool) {
		steps = append(steps, initproc.RootStep{Kind: k, Src: src, Dst: dst, Try: try})
	}
	for _, m := range mounts(s, empty, info, covers) {
		switch m.kind {
		case symlink:
			add(initproc.RootSymlink, m.src, m.dst, false)
		case bindROTry:
			add(initproc.RootROBind, m.src, m.dst, true)
		case bindRO:
			add(initproc.RootROBind, m.src, m.dst, false)
		case bindRW:
			add(initproc.RootBind, m.src, m.dst, false)
		case tmpfs:
			add(initproc.RootTmpfs, "", m.dst, false)
		case tmpfsRO:
			add(initproc.RootTmpfs, "", m.dst, false)
			remount = append(remount, initproc.RootStep{Kind: initproc.RootRemountRO, Dst: m.dst})
		case procfs:
			add(initproc.RootProc, "", m.dst, false)
		case devfs:
			add(initproc.RootDev, "", m.dst, false)
		}
	}
	// A protected name that is a link (on the creation guard's list, see
	// app/cli's keepLinks) is pinned, as a command's first process pins
	// it: the agent can neither remove nor replace it.
	for _, p := range s.Uncreatable {
		if st, err := os.Lstat(p); err == nil && st.Mode()&os.ModeSymlink != 0 {
			add(initproc.RootPinLink, "", p, false)
		}
	}
	env := s.Env
	if env == nil {
		env = []string{}
	}
	return initproc.Root{Steps: append(steps, remount...), Dir: s.Dir, Argv: s.Argv, Env: env, Console: terminalName(s.Stdout), Uncreatable: s.Uncreatable, HostPorts: s.HostPorts}
}

// terminalName is the terminal device f is, "" if it is none: bubblewrap
// shows the terminal on its stdout at /dev/console.
func terminalName(f *os.File) string {
	if f == nil {
		return ""
	}
	if _, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS); err != nil {
		return ""
	}
	name, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil || !strings.HasPrefix(name, "/dev/") {
		return ""
	}
	return name
}

// Early is a sandbox started before its layout is known: its first
// process, in namespaces of its own (nsCommand), readies them and waits
// for its Root, while `gatehouse run` waits for the daemon to open the
// run. Start gives it the Root; Discard ends it, when the run is not
// started after all. Nothing of the agent's runs in it before Start.
type Early struct {
	cmd  *exec.Cmd
	init string
	port int
	// ours is our end of the hand-off socket, root the pipe its Root
	// is written to.
	ours, root *os.File
	used       bool
}

// Prepare starts s's sandbox early, ahead of its layout: only s.Init,
// s.AgentPort and the terminal (Stdin, Stdout, Stderr) count. It returns
// nil where the sandbox is not one the first process makes itself (a
// container, Landlock, bubblewrap's), or the kernel refused the
// namespaces: Start then starts the sandbox as it would have.
func Prepare(s Spec) *Early {
	if s.Landlock || s.Container != nil || useBwrap || !ownNamespaces() || !filepath.IsAbs(s.Init) {
		return nil
	}
	e, err := nsStart(s)
	if err != nil {
		return nil
	}
	return e
}

// Discard ends an Early that Start did not take.
func (e *Early) Discard() {
	if e == nil || e.used {
		return
	}
	e.used = true
	_ = e.cmd.Process.Kill()
	_ = e.cmd.Wait()
	e.root.Close()
	e.ours.Close()
}

// nsStart starts the first process in namespaces of its own, its Root
// to come on rootFD. The user namespace maps the person's uid and gid
// onto themselves, as bubblewrap's did; the process holds every
// capability there (ambient, so they outlast exec for a user that is not
// root in it) until it starts the agent. Its environment is the agent's
// once its Root says it. If this process dies, so does the sandbox.
func nsStart(s Spec) (*Early, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("pass the sandbox's root: %w", err)
	}
	defer r.Close()
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("hand-off socket: %w", err)
	}
	ours := os.NewFile(uintptr(pair[0]), "handoff")
	theirs := os.NewFile(uintptr(pair[1]), "handoff-child")
	defer theirs.Close()
	cmd := exec.Command(s.Init, InitEntry, "--agent-port", strconv.Itoa(s.AgentPort), "--root-fd", strconv.Itoa(rootFD))
	// One processor will do, as for a zygote's run: the runtime's idle
	// threads would otherwise look for work beside the agent it starts
	// (and the agent's environment comes with the Root).
	cmd.Env = []string{"GOMAXPROCS=1"}
	cmd.Dir = "/"
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s.Stdin, s.Stdout, s.Stderr
	cmd.ExtraFiles = []*os.File{theirs, r} // handoffFD, rootFD
	uid, gid := os.Getuid(), os.Getgid()
	// The same session and process group as this process: see launch.
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWPID | unix.CLONE_NEWNET |
			unix.CLONE_NEWIPC | unix.CLONE_NEWUTS | unix.CLONE_NEWCGROUP,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		AmbientCaps: caps.All(),
		Pdeathsig:   syscall.SIGKILL,
		Setpgid:     s.OwnGroup,
	}
	if err := cmd.Start(); err != nil {
		ours.Close()
		w.Close()
		return nil, fmt.Errorf("start the sandbox: %w", err)
	}
	return &Early{cmd: cmd, init: s.Init, port: s.AgentPort, ours: ours, root: w}, nil
}

// give hands e its Root for s and returns the started sandbox's command
// and our end of its hand-off socket. A first process that died
// meanwhile is found so by Start, which reads no listeners from it.
func (e *Early) give(s Spec, empty, info string, covers map[string]string) (*exec.Cmd, *os.File, error) {
	e.used = true
	b, err := json.Marshal(rootOf(s, empty, info, covers))
	if err == nil {
		_, err = e.root.Write(b)
	}
	e.root.Close()
	if err != nil {
		_ = e.cmd.Process.Kill()
		_ = e.cmd.Wait()
		e.ours.Close()
		return nil, nil, fmt.Errorf("pass the sandbox's root: %w", err)
	}
	return e.cmd, e.ours, nil
}

// ownNamespaces says whether this process may start the sandbox's first
// process in a user namespace of its own, with capabilities there to
// mount: not where the kernel keeps unprivileged user namespaces to
// programs a security profile names (Ubuntu's AppArmor restriction,
// which lets bubblewrap through), or off altogether. A start the kernel
// refuses all the same falls back to bubblewrap (Start).
var ownNamespaces = sync.OnceValue(func() bool {
	read := func(p string) string {
		b, _ := os.ReadFile(p)
		return strings.TrimSpace(string(b))
	}
	if read("/proc/sys/user/max_user_namespaces") == "0" {
		return false
	}
	if os.Geteuid() == 0 {
		return true
	}
	return read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") != "1" &&
		read("/proc/sys/kernel/unprivileged_userns_clone") != "0"
})
