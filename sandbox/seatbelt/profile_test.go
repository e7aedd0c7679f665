package seatbelt

import (
	"flag"
	"os"
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
		{"network-proxy", sandbox.Prepared{
			Workspaces: []string{"/Users/ann/src/app"},
			Network:    sandbox.Network{Mode: sandbox.NetProxy},
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
