package landlock

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// TestLockedDirs: the directories LockedDirs names are exactly the
// workspace directories the rules leave taking no new entry (the root,
// and each writable one carved to list-only), each with the reason that
// says it best.
func TestLockedDirs(t *testing.T) {
	ws := t.TempDir()
	for _, f := range []string{
		"README.md", "src/main.go", "cfg/.env", "deep/a/b/.env", "docs/guide.md",
		".github/workflows/ci.yml", ".claude/settings.json",
	} {
		p := filepath.Join(ws, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("API_KEY=abcdefghijklmnop1234\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := protect.Scan(ws, protect.Exposure{})
	if err != nil {
		t.Fatal(err)
	}
	locked := LockedDirs(w)

	// The rules' own reading: a directory of the workspace that may not
	// take entries is the root, or one granted only listing.
	l, err := Rules(&sandbox.Prepared{Workspaces: []string{ws}})
	if err != nil {
		t.Fatal(err)
	}
	special := map[string]access{}
	addSpecials(w, special)
	var fromRules []string
	for _, d := range append([]string{ws}, l.ListDirs...) {
		if d == ws || strings.HasPrefix(d, ws+"/") && accessAt(d, ws, special) == readWrite {
			fromRules = append(fromRules, d)
		}
	}
	var named []string
	for d := range locked {
		named = append(named, d)
	}
	slices.Sort(fromRules)
	fromRules = slices.Compact(fromRules)
	slices.Sort(named)
	if !slices.Equal(fromRules, named) {
		t.Fatalf("LockedDirs names %q, the rules lock %q", named, fromRules)
	}

	tests := []struct {
		dir    string
		reason LockReason
		path   string // relative to the workspace
	}{
		{".", LockSteering, ""}, // a missing name at the root, of many
		{"cfg", LockSecret, "cfg/.env"},
		{"deep", LockSecret, "deep/a/b/.env"},
		{"deep/a", LockSecret, "deep/a/b/.env"},
		{"deep/a/b", LockSecret, "deep/a/b/.env"},
	}
	for _, tt := range tests {
		got, ok := locked[filepath.Join(ws, tt.dir)]
		if !ok {
			t.Errorf("%s is not locked", tt.dir)
			continue
		}
		if tt.dir == "." {
			if got.Reason != tt.reason || got.More == 0 {
				t.Errorf("%s: %+v, want a missing steering name and more", tt.dir, got)
			}
			continue
		}
		if got.Reason != tt.reason || got.Path != filepath.Join(ws, tt.path) {
			t.Errorf("%s: %+v, want %v for %s", tt.dir, got, tt.reason, tt.path)
		}
	}
	for _, free := range []string{"src", "docs"} {
		if _, ok := locked[filepath.Join(ws, free)]; ok {
			t.Errorf("%s is locked, though nothing special is in it", free)
		}
	}
	// Read-only trees are not named: nothing is made there for their
	// own reason.
	if _, ok := locked[filepath.Join(ws, ".claude")]; ok {
		t.Error(".claude, read-only itself, is named locked")
	}
}

func TestLockWhy(t *testing.T) {
	tests := []struct {
		lock Lock
		want string
	}{
		{Lock{Reason: LockSteering, Path: "/p/.envrc", More: 3}, "/p lacks .envrc and other names that steer the next session"},
		{Lock{Reason: LockSteering, Path: "/p/.envrc"}, "/p lacks .envrc, a name that steers the next session"},
		{Lock{Reason: LockSecret, Path: "/p/cfg/.env"}, "/p holds cfg/.env, a secret Gatehouse hides, and Landlock can hide it only by letting no command add anything to /p"},
		{Lock{Reason: LockProtected, Path: "/p/.github/workflows"}, "/p holds .github/workflows, which Gatehouse keeps read-only"},
		{Lock{Reason: LockProtected}, "/p is a project's root"},
	}
	for _, tt := range tests {
		if got := tt.lock.Why("/p"); !strings.HasPrefix(got, tt.want) {
			t.Errorf("Why = %q, want it to begin %q", got, tt.want)
		}
	}
}
