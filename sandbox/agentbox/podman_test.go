package agentbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestVisible: podman is given each place once, parents before
// children whatever the order, so what bubblewrap would have covered is
// left out, and so is an optional mount that is missing.
func TestVisible(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		in   []mount
		want []string // the places podman is given, in order
	}{
		{"a later mount at the same place wins",
			[]mount{{bindRW, dir, "/w"}, {bindRO, dir, "/w"}}, []string{"/w"}},
		{"a later parent covers an earlier child",
			[]mount{{bindRO, dir, "/d/secret"}, {tmpfsRO, "", "/d"}}, []string{"/d"}},
		{"a later child shows through its parent",
			[]mount{{tmpfsRO, "", "/d"}, {bindRO, dir, "/d/shown"}}, []string{"/d", "/d/shown"}},
		{"a sibling with a common prefix is not covered",
			[]mount{{bindRO, dir, "/data-x"}, {tmpfsRO, "", "/data"}}, []string{"/data-x", "/data"}},
		{"a missing optional mount is left out",
			[]mount{{bindROTry, filepath.Join(dir, "none"), "/none"}, {bindROTry, dir, "/some"}}, []string{"/some"}},
		{"podman's own /proc and /dev, links in the root",
			[]mount{{symlink, "usr/bin", "/bin"}, {procfs, "", "/proc"}, {devfs, "", "/dev"}, {tmpfs, "", "/tmp"}}, []string{"/tmp"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, m := range visible(c.in) {
				got = append(got, m.dst)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// TestPodmanArgs: the person's flags before the root (podman reads none
// after it), the environment by name only, no network, no capabilities,
// a read-only root, and the first process with the agent after it.
func TestPodmanArgs(t *testing.T) {
	ws := t.TempDir()
	s := Spec{
		Container: &Container{CLI: "/usr/bin/podman", GlobalArgs: []string{"--runtime", "runc"}, RunArgs: []string{"--ulimit", "nofile=4096:4096"}, Name: "gatehouse-run-r1"},
		Init:      "/opt/gatehouse/gatehouse-sandbox-init", Argv: []string{"/usr/bin/agent", "--flag"}, Dir: ws,
		Env: []string{"API_KEY=sk-value-9931", "PATH=/usr/bin"}, Home: "/home/p", Workspaces: []string{ws}, AgentPort: 4242,
	}
	a, err := podmanArgs(s, "/scratch/rootfs", mounts(s, "/scratch/empty", "/scratch/run.json", nil), false)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Join(a, " ")
	for _, want := range []string{
		"--runtime runc run --rm --name gatehouse-run-r1 --ulimit nofile=4096:4096 ",
		"--network none", "--cap-drop all", "--read-only ", "--preserve-fds 1", "--env API_KEY --env PATH",
		"--mount type=bind,src=" + ws + ",dst=" + ws + " ",
		"--mount type=tmpfs,dst=/home/p ",
		"--mount type=bind,src=/scratch/run.json,dst=" + RunInfoPath + ",ro=true",
		"--rootfs /scratch/rootfs /opt/gatehouse/gatehouse-sandbox-init __run-init --agent-port 4242 --reap -- /usr/bin/agent --flag",
	} {
		if !strings.Contains(line, want) {
			t.Errorf("args lack %q:\n%s", want, line)
		}
	}
	if strings.Contains(line, "sk-value-9931") || slices.Contains(a, "-t") {
		t.Errorf("a value on the command line, or a terminal asked for without one:\n%s", line)
	}
	// A comma in a path is quoted (podman reads --mount as CSV), not
	// refused.
	s.Workspaces = []string{ws + "/a,b"}
	a, err = podmanArgs(s, "/r", mounts(s, "/e", "/i", nil), false)
	if want := `type=bind,"src=` + ws + `/a,b","dst=` + ws + `/a,b"`; err != nil || !slices.Contains(a, want) {
		t.Errorf("a path with a comma: want %s in\n%q (%v)", want, a, err)
	}
}

// TestMakeRootfs: the root holds the system's links and nothing else.
func TestMakeRootfs(t *testing.T) {
	root, err := makeRootfs(t.TempDir(), []mount{{symlink, "usr/bin", "/bin"}, {bindRO, "/usr", "/usr"}})
	if err != nil {
		t.Fatal(err)
	}
	if l, err := os.Readlink(filepath.Join(root, "bin")); err != nil || l != "usr/bin" {
		t.Errorf("/bin: %q %v", l, err)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 1 {
		t.Errorf("root holds %v", entries)
	}
}

// TestWithSubmounts: the host's mounts below a read-only mount are shown
// read-only at their places, mapped as their parent is; those below a
// writable one, or beside it, are left as they are.
func TestWithSubmounts(t *testing.T) {
	points := []string{"/", "/etc", "/etc/resolv.conf", "/ws/.git/hooks/sub", "/ws/data", "/etcetera/x", "/scratch/empty"}
	got := withSubmounts([]mount{
		{bindROTry, "/etc", "/etc"},
		{bindRW, "/ws", "/ws"},
		{bindRO, "/ws/.git/hooks", "/ws/.git/hooks"},
		{bindRO, "/scratch/empty", "/ws/.env"},
		{bindRO, "/data/agents/home", "/root"},
	}, append(points, "/data/agents/home/.cache"))
	want := []mount{
		{bindROTry, "/etc", "/etc"},
		{bindRO, "/etc/resolv.conf", "/etc/resolv.conf"},
		{bindRW, "/ws", "/ws"},
		{bindRO, "/ws/.git/hooks", "/ws/.git/hooks"},
		{bindRO, "/ws/.git/hooks/sub", "/ws/.git/hooks/sub"},
		{bindRO, "/scratch/empty", "/ws/.env"},
		{bindRO, "/data/agents/home", "/root"},
		{bindRO, "/data/agents/home/.cache", "/root/.cache"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}
