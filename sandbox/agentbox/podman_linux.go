package agentbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
)

// podmanCommand is the container CLI's command for s: its root made in
// scratch, its file system the one bubblewrap would show.
func podmanCommand(s Spec, scratch, empty, info string, covers map[string]string) (*exec.Cmd, error) {
	ms := mounts(s, empty, info, covers)
	points, err := initproc.MountPoints()
	if err != nil {
		return nil, err
	}
	ms = withSubmounts(ms, points)
	root, err := makeRootfs(scratch, ms)
	if err != nil {
		return nil, fmt.Errorf("make the container's root: %w", err)
	}
	terminal := false
	if s.Stdin != nil {
		_, err := unix.IoctlGetTermios(int(s.Stdin.Fd()), unix.TCGETS)
		terminal = err == nil
	}
	a, err := podmanArgs(s, root, ms, terminal)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(s.Container.CLI, a...)
	// Podman passes each variable named by --env with the value it has.
	cmd.Env = s.Env
	return cmd, nil
}

// podman runs one of the container CLI's short commands on c's
// container, bounded: the run is ending or starting, and must not hang
// on it.
func podman(c *Container, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, c.CLI, append(append([]string(nil), c.GlobalArgs...), args...)...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", c.CLI, args[0], err, strings.TrimSpace(string(out)))
	}
	return strings.TrimSpace(string(out)), nil
}

// containerPID is the container's first process on the host, the root of
// everything the agent starts (for Box.Process).
func containerPID(ctx context.Context, c *Container) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	out, err := podman(c, "inspect", "--format", "{{.State.Pid}}", c.Name)
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(out)
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("the container %s has no process (%q)", c.Name, out)
	}
	return pid, nil
}

// killContainer ends the container's first process and with it its PID
// namespace: every process the agent started.
func killContainer(c *Container) error {
	_, err := podman(c, "kill", "--signal", "KILL", c.Name)
	return err
}

// removeContainer removes the container if its CLI, killed, left it.
func removeContainer(c *Container) {
	_, _ = podman(c, "rm", "--force", "--ignore", "--time", "0", c.Name)
}

// watchOwner starts a watcher that removes the container when this
// process dies without ending the run, however it dies (SIGKILL too):
// the container's processes are no children of its CLI, which
// Pdeathsig alone would end. The watcher, in a session of its own so the
// terminal's signals pass it by, waits on a pipe only this process
// holds; "ended" on it (endWatch) means the run ended here.
func watchOwner(c *Container) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	rm := append(append([]string(nil), c.GlobalArgs...), "rm", "--force", "--ignore", "--time", "0", c.Name)
	cmd := exec.Command("/bin/sh", append([]string{"-c", `read -r line; [ "$line" = ended ] || exec "$0" "$@" >/dev/null 2>&1`, c.CLI}, rm...)...)
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("start the container's watcher: %w", err)
	}
	go func() { _ = cmd.Wait() }()
	return w, nil
}

// endWatch tells the watcher the run ended here.
func endWatch(w *os.File) {
	if w != nil {
		_, _ = w.WriteString("ended\n")
		w.Close()
	}
}
