package effect

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestPolicyEffect describes a change set as effect rules see it: every
// change listed, deleted and emptied files counted (git's own directory
// aside), and links made to lead out of the workspace named.
func TestPolicyEffect(t *testing.T) {
	ws := t.TempDir()
	cs := ChangeSets{
		Workspaces: []string{ws},
		Sets: []Set{{Changes: []Change{
			{Path: "a.txt", Op: Delete, Kind: File},
			{Path: "b.txt", Op: Modify, Kind: File, Emptied: true},
			{Path: "src", Op: Delete, Kind: Dir},
			{Path: ".git/index", Op: Delete, Kind: File},
			{Path: "in", Op: Create, Kind: Symlink, Target: "src/x"},
			{Path: "out", Op: Create, Kind: Symlink, Target: "../../etc/passwd"},
			{Path: "abs", Op: Create, Kind: Symlink, Target: "/etc/shadow"},
		}}},
		Uppers: []string{""},
	}
	e := PolicyEffect(t.Context(), cs)
	if len(e.Changes) != 7 || !e.Changes[2].Dir || e.Changes[0].Op != "delete" {
		t.Errorf("changes %+v", e.Changes)
	}
	if e.Deleted != 1 || e.Emptied != 1 {
		t.Errorf("deleted %d emptied %d, want 1 and 1 (.git's own files and directories aside)", e.Deleted, e.Emptied)
	}
	want := []string{"out -> ../../etc/passwd", "abs -> /etc/shadow"}
	if !reflect.DeepEqual(e.LinksOut, want) {
		t.Errorf("links out %v, want %v", e.LinksOut, want)
	}
	if c, m, d := cs.Counts(); cs.Total() != 7 || c+m+d == 0 {
		t.Errorf("total %d, counts %d %d %d", cs.Total(), c, m, d)
	}
}

// TestKeepOut takes protected paths out of a staged change set, whatever
// made them, and leaves the rest to land.
func TestKeepOut(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	cs := ChangeSets{
		Workspaces: []string{ws},
		Sets: []Set{{Changes: []Change{
			{Path: "main.go", Op: Modify, Kind: File},
			{Path: ".envrc", Op: Create, Kind: File},
			{Path: ".git/hooks/pre-commit", Op: Create, Kind: File},
			{Path: ".vscode/tasks.json", Op: Create, Kind: File},
			{Path: ".vscode", Op: Create, Kind: Dir},
		}}},
		Uppers: []string{""},
	}
	out, kept, err := KeepOut(cs)
	if err != nil {
		t.Fatal(err)
	}
	var landing []string
	for _, c := range out.Sets[0].Changes {
		landing = append(landing, c.Path)
	}
	if !reflect.DeepEqual(landing, []string{"main.go"}) {
		t.Errorf("landing %v, want only main.go", landing)
	}
	for _, p := range []string{".envrc", ".git/hooks/pre-commit", ".vscode/tasks.json"} {
		if !strings.Contains(strings.Join(kept, "\n"), p) {
			t.Errorf("kept %v does not name %s", kept, p)
		}
	}
	if len(cs.Sets[0].Changes) != 5 {
		t.Error("KeepOut changed the set it was given")
	}
}

// TestStagedDiff shows a staged text file's change against the
// workspace's, and never git's own files.
func TestStagedDiff(t *testing.T) {
	ws, upper := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("old\n"), 0o644)
	os.WriteFile(filepath.Join(upper, "a.txt"), []byte("new\n"), 0o644)
	os.MkdirAll(filepath.Join(upper, ".git"), 0o755)
	os.WriteFile(filepath.Join(upper, ".git", "config"), []byte("[core]\n"), 0o644)
	cs := ChangeSets{Workspaces: []string{ws}, Uppers: []string{upper}, Sets: []Set{{Changes: []Change{
		{Path: "a.txt", Op: Modify, Kind: File},
		{Path: ".git/config", Op: Modify, Kind: File},
	}}}}
	d := StagedDiff(cs, false)
	if !strings.Contains(d, "-old") || !strings.Contains(d, "+new") || strings.Contains(d, "core") {
		t.Fatalf("diff:\n%s", d)
	}
	if got := CardChange("x", Change{Op: Create, Kind: File, Mode: 0o755}); got.Mode != "0755" || got.OldMode != "" {
		t.Errorf("card change %+v", got)
	}
}
