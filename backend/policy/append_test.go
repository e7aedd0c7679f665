package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRuleStringRoundTrips(t *testing.T) {
	r := RuleFromCall(Action{Tool: ToolRunCommand, Binary: "/usr/bin/gh", Argv: []string{"gh", "pr", "create", "--title", "x\"y"}}, ScopeAlways)
	if r.Binary != "/usr/bin/gh" || strings.Join(r.Args, " ") != "pr create" {
		t.Fatalf("rule %+v", r)
	}
	want := "[[rule]]\nid = \"allow-gh-pr-create\"\naction = \"allow\"\ntool = \"run_command\"\nbinary = \"/usr/bin/gh\"\nargs = [\"pr\", \"create\"]\nreason = \"approved always\"\n"
	if r.String() != want {
		t.Fatalf("String():\n%s\nwant:\n%s", r.String(), want)
	}
	odd := Rule{ID: "q\"\\\n\x01é", Action: Deny, Paths: []string{"/a/[x]*"}, Reason: "tab\there"}
	_, rules, err := parseUser([]byte(odd.String()), "mem")
	if err != nil {
		t.Fatalf("%v\n%s", err, odd.String())
	}
	if rules[0].ID != odd.ID || rules[0].Reason != odd.Reason || rules[0].Paths[0] != odd.Paths[0] {
		t.Fatalf("round trip %+v", rules[0])
	}
}

func TestRuleFromCallShapes(t *testing.T) {
	cases := []struct {
		call Action
		args []string
	}{
		{Action{Tool: ToolRunCommand, Binary: "/bin/rm", Argv: []string{"rm", "-rf", "build"}}, []string{"-rf", "build"}},
		{Action{Tool: ToolRunCommand, Binary: "/usr/bin/python3", Argv: []string{"python3", "x.py", "-v"}}, []string{"x.py", "-v"}},
		{Action{Tool: ToolRunCommand, Binary: "/usr/bin/go", Argv: []string{"go", "test", "./..."}}, []string{"test"}},
		{Action{Tool: ToolRunCommand, Binary: "/usr/bin/ls", Argv: []string{"ls"}}, nil},
	}
	for _, c := range cases {
		r := RuleFromCall(c.call, ScopeSession)
		if strings.Join(r.Args, "|") != strings.Join(c.args, "|") {
			t.Errorf("%v: args %q, want %q", c.call.Argv, r.Args, c.args)
		}
	}
	r := RuleFromCall(Action{Tool: ToolFetchURL, URL: "https://Docs.Example.com./a?b"}, ScopeSession)
	if len(r.Domains) != 1 || r.Domains[0] != "docs.example.com" || r.Tool != "" {
		t.Fatalf("fetch rule %+v", r)
	}
	r = RuleFromCall(Action{Tool: ToolReadFile, Paths: []string{"/w/we*ird[1].txt"}}, ScopeSession)
	s := Session{Mode: ModeAsk, Workspaces: []string{"/other"}, Home: "/h", Grants: []Rule{r}}
	if v := Builtin().Decide(s, Action{Tool: ToolReadFile, Paths: []string{"/w/we*ird[1].txt"}}).Verdict; v != Allow {
		t.Errorf("grant for a path with glob characters: %s", v)
	}
	if v := Builtin().Decide(s, Action{Tool: ToolReadFile, Paths: []string{"/w/weXird1.txt"}}).Verdict; v != Ask {
		t.Errorf("grant with glob characters matched another file: %s", v)
	}
}

func TestAppendRuleKeepsTheFile(t *testing.T) {
	f := newFixture(t)
	// A trailing comment without a newline must survive, and the new rule
	// must start on a line of its own.
	orig := userPolicyTOML + "# last words"
	write(t, f.userFile, orig)
	os.Chmod(f.userFile, 0o640)
	r := RuleFromCall(Action{Tool: ToolRunCommand, Binary: "/usr/bin/docker", Argv: []string{"docker", "ps"}}, ScopeAlways)
	if err := AppendRule(f.userFile, r); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(f.userFile)
	if !strings.HasPrefix(string(got), orig+"\n") {
		t.Fatal("existing content was changed")
	}
	if !strings.HasSuffix(string(got), r.String()) {
		t.Fatalf("rule not appended:\n%s", got)
	}
	if fi, _ := os.Stat(f.userFile); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", fi.Mode().Perm())
	}
	p, err := Load(f.userFile, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := Session{Mode: ModeAsk, Workspaces: []string{f.ws}, Home: f.home}
	d := p.Decide(s, Action{Tool: ToolRunCommand, Binary: "/usr/bin/docker", Argv: []string{"docker", "ps"}, Cwd: f.ws})
	if d.Verdict != Allow || d.Rule.Source != SourceUser || d.Rule.ID != "allow-docker-ps" {
		t.Fatalf("after append: %+v", d)
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(f.userFile), ".*.tmp"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func TestAppendRuleCreatesAndFollowsSymlink(t *testing.T) {
	d := t.TempDir()
	real := filepath.Join(d, "dotfiles/policy.toml")
	os.MkdirAll(filepath.Dir(real), 0o755)
	write(t, real, "# mine\n")
	link := filepath.Join(d, "config/policy.toml")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	r := RuleFromCall(Action{Tool: ToolFetchURL, URL: "https://go.dev/"}, ScopeAlways)
	if err := AppendRule(link, r); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("symlink replaced by a file")
	}
	got, _ := os.ReadFile(real)
	if !strings.Contains(string(got), `domains = ["go.dev"]`) {
		t.Fatalf("target not updated:\n%s", got)
	}

	fresh := filepath.Join(d, "new/dir/policy.toml")
	if err := AppendRule(fresh, r); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(fresh, nil); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != 0o600 {
		t.Errorf("new file mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestAppendRuleRefusesWhatWouldNotLoad(t *testing.T) {
	d := t.TempDir()
	uf := filepath.Join(d, "policy.toml")
	write(t, uf, "# ok\n")
	if err := AppendRule(uf, Rule{Action: Allow}); err == nil {
		t.Fatal("appended a rule with no selector")
	}
	if err := AppendRule(uf, Rule{Action: Allow, Binary: "git"}); err == nil {
		t.Fatal("appended a relative binary")
	}
	write(t, uf, "broken = [\n")
	err := AppendRule(uf, RuleFromCall(Action{Tool: ToolFetchURL, URL: "https://a.b/"}, ScopeAlways))
	if err == nil || !strings.Contains(err.Error(), "not changed") {
		t.Fatalf("append to a broken file: %v", err)
	}
	if got, _ := os.ReadFile(uf); string(got) != "broken = [\n" {
		t.Fatal("broken file was modified")
	}
}
