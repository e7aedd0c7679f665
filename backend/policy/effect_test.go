package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestDecideEffect(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "policy.toml")
	os.WriteFile(user, []byte(`
[[effect]]
id = "hold-migrations"
action = "ask"
paths = ["db/migrations/**"]
reason = "migrations reach production"

[[effect]]
id = "generated-ok"
action = "allow"
paths = ["gen/**"]
ops = ["delete"]
`), 0o600)
	p, err := Load(user, nil)
	if err != nil {
		t.Fatal(err)
	}
	deletes := func(n int, under string) Effect {
		e := Effect{Deleted: n}
		for i := 0; i < n; i++ {
			e.Changes = append(e.Changes, EffectChange{Path: fmt.Sprintf("%s/f%d", under, i), Op: "delete"})
		}
		return e
	}
	cases := []struct {
		name string
		e    Effect
		want Verdict
		rule string
	}{
		{"three edits apply", Effect{Changes: []EffectChange{{Path: "a.go", Op: "modify"}, {Path: "b.go", Op: "modify"}, {Path: "c.go", Op: "modify"}}}, Allow, "effect-apply"},
		{"20 deletions apply", deletes(20, "src"), Allow, "effect-apply"},
		{"21 deletions hold", deletes(21, "src"), Ask, "mass-delete"},
		{"a person's rule allows generated deletions", deletes(40, "gen"), Allow, "generated-ok"},
		{"a marked path holds", Effect{Changes: []EffectChange{{Path: "db/migrations/0001.sql", Op: "modify"}}}, Ask, "hold-migrations"},
		{"a tracked directory", Effect{Deleted: 2, TrackedDirsDeleted: []string{"src"}}, Ask, "tracked-dir-delete"},
		{"history rewrite", Effect{HistoryRewrites: []string{"refs/heads/main moved back 3 commits"}}, Ask, "history-rewrite"},
		{"a link out", Effect{LinksOut: []string{"src -> /etc"}}, Ask, "link-out"},
		{"a nested instruction file", Effect{Changes: []EffectChange{{Path: "a.go", Op: "modify"}, {Path: "pkg/CLAUDE.md", Op: "create"}}}, Ask, "steering"},
		{"a case variant the sandbox lets through on Linux", Effect{Changes: []EffectChange{{Path: "claude.md", Op: "create"}}}, Ask, "steering"},
		{"a new workspace file", Effect{Changes: []EffectChange{{Path: "evil.code-workspace", Op: "create"}}}, Ask, "steering"},
		{"a nested version manager config", Effect{Changes: []EffectChange{{Path: "sub/.mise.toml", Op: "modify"}}}, Ask, "steering"},
		{"a steering file deleted", Effect{Deleted: 1, Changes: []EffectChange{{Path: "pkg/AGENTS.md", Op: "delete"}}}, Allow, "effect-apply"},
		{"a secret edit", Effect{SecretEdits: []string{"main records a different .env"}}, Ask, "secret-edit"},
		{"a person's allow does not land a secret edit", Effect{Changes: deletes(40, "gen").Changes, Deleted: 40, SecretEdits: []string{"the secret file gen/.env is deleted"}}, Ask, "secret-edit"},
		{"3 of 4 tracked files", Effect{Deleted: 3, TrackedLost: 3, TrackedFiles: 4}, Ask, "tracked-majority-delete"},
		{"2 of 4 tracked files", Effect{Deleted: 2, TrackedLost: 2, TrackedFiles: 4}, Allow, "effect-apply"},
		{"2 of 3 tracked files", Effect{Deleted: 2, TrackedLost: 2, TrackedFiles: 3}, Ask, "tracked-majority-delete"},
		{"the only tracked file", Effect{Deleted: 1, TrackedLost: 1, TrackedFiles: 1}, Allow, "effect-apply"},
		{"1 of 5 tracked files", Effect{Deleted: 1, TrackedLost: 1, TrackedFiles: 5}, Allow, "effect-apply"},
		{"HEAD", Effect{RepoLost: []string{"HEAD"}}, Ask, "repository-delete"},
		{"the repository before a history rewrite", Effect{RepoLost: []string{".git/refs"}, HistoryRewrites: []string{"refs/heads/main (at 1) is deleted"}}, Ask, "repository-delete"},
		{"a person's rule decides first", Effect{RepoLost: []string{"HEAD"}, Changes: []EffectChange{{Path: "gen/x", Op: "delete"}}}, Allow, "generated-ok"},
	}
	for _, tc := range cases {
		d := p.DecideEffect(tc.e)
		if d.Verdict != tc.want || d.Rule.ID != tc.rule {
			t.Errorf("%s: %v by %s (%s), want %v by %s", tc.name, d.Verdict, d.Rule.ID, d.Reason, tc.want, tc.rule)
		}
	}
}

// TestRepositoryDeleteSays: the card's reason names how much of the
// project and which parts of the repository go.
func TestRepositoryDeleteSays(t *testing.T) {
	d := Builtin().DecideEffect(Effect{Deleted: 5, TrackedLost: 5, TrackedFiles: 5, RepoLost: []string{".git/objects", ".git/refs", "HEAD"}})
	want := "it deletes 5 of the workspace's 5 tracked files and the repository's history (.git/objects, .git/refs, HEAD)"
	if d.Reason != want {
		t.Fatalf("reason %q, want %q", d.Reason, want)
	}
	if d.Rule.ID != "repository-delete" || len(d.Findings) < 3 {
		t.Fatalf("%s %q", d.Rule.ID, d.Findings)
	}
}

func TestEffectRulesAreChecked(t *testing.T) {
	for _, bad := range []string{
		"[[effect]]\naction = \"maybe\"\n",
		"[[effect]]\naction = \"ask\"\nops = [\"rename\"]\n",
		"[[effect]]\naction = \"ask\"\npaths = [\"/etc/**\"]\n",
		"[[effect]]\naction = \"ask\"\nmin_files = -1\n",
		"[[effect]]\naction = \"ask\"\nwhat = 1\n",
	} {
		f := filepath.Join(t.TempDir(), "policy.toml")
		os.WriteFile(f, []byte(bad), 0o600)
		if _, err := Load(f, nil); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

// A workspace's effect rules can only tighten.
func TestWorkspaceEffectRulesOnlyTighten(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".gatehouse"), 0o755)
	os.WriteFile(filepath.Join(ws, ".gatehouse", "policy.toml"), []byte(`
[[effect]]
id = "let-me"
action = "allow"
[[effect]]
id = "hold-all-deletes"
action = "ask"
ops = ["delete"]
`), 0o600)
	p, err := Load("", []string{ws})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Notices()) != 1 {
		t.Fatalf("notices %v", p.Notices())
	}
	d := p.DecideEffect(Effect{Deleted: 1, Changes: []EffectChange{{Path: "x", Op: "delete"}}})
	if d.Verdict != Ask || d.Rule.ID != "hold-all-deletes" {
		t.Fatalf("%+v", d)
	}
}
