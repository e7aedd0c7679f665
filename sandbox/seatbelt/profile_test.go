package seatbelt

import (
	"flag"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestProfileGolden(t *testing.T) {
	tests := []struct {
		name string
		p    sandbox.Prepared
		ws   []protect.Workspace
	}{
		{"network-none", sandbox.Prepared{
			Workspaces: []string{"/Users/ann/src/app"},
			Hidden:     []string{"/Users/ann/Library/Application Support/Gatehouse"},
			Network:    sandbox.Network{Mode: sandbox.NetNone},
		}, []protect.Workspace{{
			Root:      "/Users/ann/src/app",
			Protected: protect.Set{Missing: []string{"/Users/ann/src/app/.husky", "/Users/ann/src/app/tools/githooks"}},
			Secrets:   protect.Found{Files: []string{"/Users/ann/src/app/.env"}, Dirs: []string{"/Users/ann/src/app/locked"}},
		}}},
		{"network-host-extra-paths", sandbox.Prepared{
			Workspaces: []string{"/Users/ann/src/we\"ird"},
			ReadOnly:   []string{"/Users/ann/go/pkg/mod"},
			ReadWrite:  []string{"/Users/ann/.cache/go-build"},
			Network:    sandbox.Network{Mode: sandbox.NetHost},
		}, nil},
		{"cache-in-hidden-data-dir", sandbox.Prepared{
			Workspaces: []string{"/Users/ann/src/app"},
			Hidden:     []string{"/Users/ann/Library/Application Support/Gatehouse"},
			ReadOnly:   []string{"/Users/ann/.cargo/bin", "/Users/ann/.rustup"},
			Cache:      "/Users/ann/Library/Application Support/Gatehouse/cache/0123456789abcdef",
			Network:    sandbox.Network{Mode: sandbox.NetNone},
		}, nil},
		{"network-proxy", sandbox.Prepared{
			Workspaces: []string{"/Users/ann/src/app"},
			Network:    sandbox.Network{Mode: sandbox.NetProxy},
		}, nil},
		{"network-proxy-host-ports", sandbox.Prepared{
			Workspaces: []string{"/Users/ann/src/app"},
			Network:    sandbox.Network{Mode: sandbox.NetProxy, Proxy: hostPorts{5432, 6379}},
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Profile(&tc.p, "/private/tmp/gatehouse-run-1/home", "/private/tmp/gatehouse-run-1/tmp", tc.ws, 49152)
			golden := filepath.Join("testdata", tc.name+".sb")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("read golden (run with -update to create): %v", err)
			}
			if got != string(want) {
				t.Errorf("profile differs from %s; got:\n%s", golden, got)
			}
		})
	}
}

// A protected name that is a symbolic link gets its target denied too:
// Seatbelt matches the path a write resolves to.
func TestProfileDeniesProtectedLinkTargets(t *testing.T) {
	ws := t.TempDir()
	target := filepath.Join(ws, "cfg", "claude")
	if err := os.MkdirAll(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("cfg/claude", filepath.Join(ws, ".claude")); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(target)
	if err != nil {
		t.Fatal(err)
	}
	got := Profile(&sandbox.Prepared{Workspaces: []string{ws}}, "/h", "/t", nil, 0)
	deny := got[strings.Index(got, "(deny file-write*"):]
	for _, want := range []string{quote(filepath.Join(ws, ".claude")), quote(real)} {
		if !strings.Contains(deny, "(subpath "+want+")") {
			t.Errorf("the deny block lacks %s:\n%s", want, deny)
		}
	}
}

// A linked worktree's common git dir is writable, its config and hooks
// are not.
func TestProfileDeniesLinkedGitConfig(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	repo, wt := filepath.Join(root, "repo"), filepath.Join(root, "wt")
	for _, args := range [][]string{{"init", "-q", repo}, {"-C", repo, "commit", "-q", "--allow-empty", "-m", "x"}, {"-C", repo, "worktree", "add", "-q", wt}} {
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.test", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.test")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	w, err := protect.Scan(wt, protect.Exposure{})
	if err != nil {
		t.Fatal(err)
	}
	got := Profile(&sandbox.Prepared{Workspaces: []string{wt}}, "/h", "/t", []protect.Workspace{w}, 0)
	deny := got[strings.Index(got, "(deny file-write*"):]
	for _, want := range []string{filepath.Join(repo, ".git", "config"), filepath.Join(repo, ".git", "hooks")} {
		if !strings.Contains(deny, "(subpath "+quote(want)+")") {
			t.Errorf("the deny block lacks %s:\n%s", want, deny)
		}
	}
}

// hostPorts is a proxy with host ports that serves nothing.
type hostPorts []int

func (h hostPorts) Serve(net.Listener)          {}
func (h hostPorts) HostPorts() []int            { return h }
func (h hostPorts) ServeHost(int, net.Listener) {}
