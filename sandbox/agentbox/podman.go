package agentbox

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// Container runs a confined agent with podman rather than bubblewrap:
// the same file system (mounts), spelt as podman's --mount flags over an
// empty root of the run's own (no image), a network namespace with only
// its loopback, and the same first process inside.
type Container struct {
	// CLI is podman's path.
	CLI string
	// GlobalArgs go before `run` (e.g. --runtime runc); RunArgs after it
	// (e.g. --ulimit nofile=4096:4096): [sandbox] container_args and
	// container_run_args.
	GlobalArgs, RunArgs []string
	// Name is the container's name, ContainerName of the run.
	Name string
}

// ContainerPrefix begins the name of every container a confined run
// starts, so one left behind can be found.
const ContainerPrefix = "gatehouse-run-"

// ContainerName is the container of run id.
func ContainerName(run string) string { return ContainerPrefix + run }

// podmanArgs are podman's arguments for s with the file system ms
// (mounts), whose root is the empty directory rootfs (see makeRootfs for
// its links); terminal asks for a terminal inside (-t), for a stdin that
// is one. The agent's environment is passed by name (cmd.Env holds the
// values), so no value shows on podman's command line.
func podmanArgs(s Spec, rootfs string, ms []mount, terminal bool) ([]string, error) {
	c := s.Container
	a := append(append([]string(nil), c.GlobalArgs...), "run", "--rm", "--name", c.Name)
	// Podman reads no flag after the root's path: its own come first.
	a = append(a, c.RunArgs...)
	a = append(a, "--network", "none", "--hostname", hostname, "--no-hosts",
		"--read-only", "--read-only-tmpfs=false", "--cap-drop", "all", "--security-opt", "no-new-privileges",
		"--http-proxy=false", "--log-driver", "none", "--preserve-fds", "1", "-i", "--workdir", s.Dir)
	if terminal {
		a = append(a, "-t")
	}
	if os.Geteuid() != 0 {
		a = append(a, "--userns", "keep-id") // rootless: the person's own uid inside
	}
	// Podman shows the host's /sys read-only; bubblewrap shows none.
	a = append(a, "--mount", sandbox.ContainerMount("type=tmpfs", "dst=/sys", "ro=true"))
	for _, e := range s.Env {
		k, _, _ := strings.Cut(e, "=")
		a = append(a, "--env", k)
	}
	for _, m := range visible(ms) {
		switch m.kind {
		case bindROTry, bindRO:
			a = append(a, "--mount", sandbox.ContainerMount("type=bind", "src="+m.src, "dst="+m.dst, "ro=true"))
		case bindRW:
			a = append(a, "--mount", sandbox.ContainerMount("type=bind", "src="+m.src, "dst="+m.dst))
		case tmpfs:
			a = append(a, "--mount", sandbox.ContainerMount("type=tmpfs", "dst="+m.dst))
		case tmpfsRO:
			a = append(a, "--mount", sandbox.ContainerMount("type=tmpfs", "dst="+m.dst, "ro=true"))
		}
	}
	a = append(a, "--rootfs", rootfs)
	// The first process stays PID 1 (superviseAgent).
	return append(a, initArgv(s, "--reap")...), nil
}

// visible are the mounts podman is given: podman refuses two at one
// place and mounts parents before children whatever the order, so a
// mount a later one covers (at its place or above it) is left out, as
// bubblewrap would have covered it; so is an optional one that is
// missing. Its own /proc and /dev stand for ours; the links are in the
// root (makeRootfs).
func visible(ms []mount) []mount {
	var out []mount
	for i, m := range ms {
		switch m.kind {
		case procfs, devfs, symlink:
			continue
		case bindROTry:
			if _, err := os.Stat(m.src); err != nil {
				continue
			}
		}
		covered := false
		for _, later := range ms[i+1:] {
			if later.kind != procfs && later.kind != devfs && within(m.dst, later.dst) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, m)
		}
	}
	return out
}

// withSubmounts adds, after each read-only mount, the host's mounts
// below its source (points, the host's mount points) shown read-only at
// their places: podman makes only the top of a read-only bind read-only,
// where bubblewrap makes every mount below it so too.
func withSubmounts(ms []mount, points []string) []mount {
	out := make([]mount, 0, len(ms))
	for _, m := range ms {
		out = append(out, m)
		if m.kind != bindRO && m.kind != bindROTry {
			continue
		}
		for _, p := range points {
			if p != m.src && within(p, m.src) {
				out = append(out, mount{bindRO, p, m.dst + strings.TrimPrefix(p, strings.TrimSuffix(m.src, "/"))})
			}
		}
	}
	return out
}

// within reports whether path is dir or beneath it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

// makeRootfs makes the container's empty root in scratch with the
// system's links (/bin -> usr/bin), which podman has no flag for.
func makeRootfs(scratch string, ms []mount) (string, error) {
	root := filepath.Join(scratch, "rootfs")
	if err := os.Mkdir(root, 0o755); err != nil {
		return "", err
	}
	for _, m := range ms {
		if m.kind == symlink {
			if err := os.Symlink(m.src, filepath.Join(root, m.dst)); err != nil {
				return "", err
			}
		}
	}
	return root, nil
}
