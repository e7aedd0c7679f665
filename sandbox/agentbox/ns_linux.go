package agentbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
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
	return initproc.Root{Steps: append(steps, remount...), Hostname: "gatehouse", Dir: s.Dir, Console: terminalName(s.Stdout)}
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

// nsCommand starts s's first process in namespaces of its own, with its
// Root on rootFD (the returned file, which the caller closes once the
// process has started). The user namespace maps the person's uid and gid
// onto themselves, as bubblewrap's did; the process holds every
// capability there (ambient, so they outlast exec for a user that is not
// root in it) until it starts the agent.
func nsCommand(s Spec, _, empty, info string, covers map[string]string) (*exec.Cmd, *os.File, error) {
	b, err := json.Marshal(rootOf(s, empty, info, covers))
	if err != nil {
		return nil, nil, err
	}
	fd, err := unix.MemfdCreate("gatehouse-root", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, nil, fmt.Errorf("pass the sandbox's root: %w", err)
	}
	f := os.NewFile(uintptr(fd), "root")
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("pass the sandbox's root: %w", err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("pass the sandbox's root: %w", err)
	}
	argv := initArgv(s, "--root-fd", strconv.Itoa(rootFD))
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = s.Env
	cmd.Dir = "/"
	uid, gid := os.Getuid(), os.Getgid()
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWPID | unix.CLONE_NEWNET |
			unix.CLONE_NEWIPC | unix.CLONE_NEWUTS | unix.CLONE_NEWCGROUP,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		AmbientCaps: allCaps(),
	}
	return cmd, f, nil
}

// allCaps lists every capability this kernel knows.
var allCaps = sync.OnceValue(func() []uintptr {
	all := make([]uintptr, caps.LastCap()+1)
	for i := range all {
		all[i] = uintptr(i)
	}
	return all
})

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
