package policy

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestDecideTable(t *testing.T) {
	f := newFixture(t)
	user, err := Load(f.userFile, []string{f.ws})
	if err != nil {
		t.Fatal(err)
	}
	bare := Builtin()
	ws, home := f.ws, f.home
	in := f.in
	cmd := func(cwd, bin string, argv ...string) Action {
		return Action{Tool: ToolRunCommand, Binary: bin, Cwd: cwd, Argv: argv}
	}
	file := func(tool string, paths ...string) Action { return Action{Tool: tool, Paths: paths} }
	fetch := func(u string) Action { return Action{Tool: ToolFetchURL, URL: u} }
	git := func(args ...string) Action { return cmd(ws, "/usr/bin/git", append([]string{"git"}, args...)...) }
	rm := func(args ...string) Action { return cmd(ws, "/usr/bin/rm", append([]string{"rm"}, args...)...) }

	type tc struct {
		name   string
		pol    *Policy
		mode   Mode
		call   Action
		grants []Rule
		want   Verdict
		rule   string   // expected RuleRef.ID, when set
		risk   RiskKind // a risk that must be noted, when set
	}
	cases := []tc{
		// Reads, by mode.
		{name: "default read in workspace", call: file(ToolReadFile, in("main.go")), want: Allow, rule: "workspace-read"},
		{name: "plan read in workspace", mode: ModePlan, call: file(ToolReadFile, in("main.go")), want: Allow},
		{name: "unattended read in workspace", mode: ModeUnattended, call: file(ToolReadFile, in("main.go")), want: Allow},
		{name: "default read outside asks", call: file(ToolReadFile, "/etc/passwd"), want: Ask, risk: RiskOutsideWorkspace},
		{name: "plan read outside denied", mode: ModePlan, call: file(ToolReadFile, "/etc/passwd"), want: Deny},
		{name: "unattended read outside denied", mode: ModeUnattended, call: file(ToolReadFile, "/etc/passwd"), want: Deny},
		{name: "list_dir in workspace", call: file(ToolListDir, ws), want: Allow},
		{name: "search_files in workspace", call: file(ToolSearchFiles, in("src")), want: Allow},
		{name: "read with no paths asks", call: file(ToolReadFile), want: Ask},
		{name: "prefix sibling is outside", call: file(ToolReadFile, ws+"2/x"), want: Ask},
		{name: "user rule allows notes", call: file(ToolReadFile, home+"/notes/a/todo.md"), want: Allow, rule: "allow-notes"},
		{name: "user read rule is per tool", call: file(ToolListDir, home+"/notes"), want: Ask},
		{name: "plan honours user read rule", mode: ModePlan, call: file(ToolReadFile, home+"/notes/x"), want: Allow},

		// Writes, by mode.
		{name: "default write asks", call: file(ToolWriteFile, in("main.go")), want: Ask, rule: "workspace-edit"},
		{name: "accept-edits write allowed", mode: ModeAcceptEdits, call: file(ToolWriteFile, in("main.go")), want: Allow},
		{name: "accept-edits edit allowed", mode: ModeAcceptEdits, call: file(ToolEditFile, in("a/b.go")), want: Allow},
		{name: "plan write denied", mode: ModePlan, call: file(ToolWriteFile, in("main.go")), want: Deny, rule: "plan-mode"},
		{name: "unattended write in workspace", mode: ModeUnattended, call: file(ToolWriteFile, in("main.go")), want: Allow},
		{name: "accept-edits write outside asks", mode: ModeAcceptEdits, call: file(ToolWriteFile, "/tmp/x"), want: Ask},
		{name: "unattended write outside denied", mode: ModeUnattended, call: file(ToolWriteFile, "/tmp/x"), want: Deny},
		{name: "one path outside spoils the write", mode: ModeAcceptEdits, call: file(ToolWriteFile, in("a"), "/tmp/b"), want: Ask},
		{name: "git hook is protected", mode: ModeAcceptEdits, call: file(ToolWriteFile, in(".git/hooks/pre-commit")), want: Ask, risk: RiskProtected},
		{name: "git config is protected", mode: ModeAcceptEdits, call: file(ToolEditFile, in(".git/config")), want: Ask, risk: RiskProtected},
		{name: "agent config is protected", mode: ModeAcceptEdits, call: file(ToolWriteFile, in(".claude/settings.json")), want: Ask, risk: RiskProtected},
		{name: "workspace policy is protected", mode: ModeAcceptEdits, call: file(ToolWriteFile, in(".gatehouse/policy.toml")), want: Ask},
		{name: "shell rc is protected", mode: ModeAcceptEdits, call: file(ToolWriteFile, home+"/.bashrc"), want: Ask, risk: RiskProtected},
		{name: "unattended protected denied", mode: ModeUnattended, call: file(ToolWriteFile, in(".git/hooks/post-checkout")), want: Deny},
		{name: "reading a git hook is fine", call: file(ToolReadFile, in(".git/hooks/pre-commit")), want: Allow},
		{name: "workspace denies vendor writes", mode: ModeAcceptEdits, call: file(ToolWriteFile, in("vendor/x/y.go")), want: Deny, rule: "ws-deny-vendor"},
		{name: "user denies /etc writes", mode: ModeAcceptEdits, call: file(ToolWriteFile, "/etc/hosts"), want: Deny, rule: "deny-etc-writes"},

		// Harmless commands.
		{name: "ls", call: cmd(ws, "/usr/bin/ls", "ls", "-la"), want: Allow, rule: "harmless-command"},
		{name: "git status", call: git("status"), want: Allow},
		{name: "git diff HEAD", call: git("diff", "HEAD~1"), want: Allow},
		{name: "git diff --output writes", call: git("diff", "--output=/tmp/x"), want: Ask},
		{name: "git commit is not harmless", call: git("commit", "-m", "x"), want: Ask},
		{name: "rg", call: cmd(in("src"), "/usr/bin/rg", "rg", "TODO", "."), want: Allow},
		{name: "rg --pre runs programs", call: cmd(ws, "/usr/bin/rg", "rg", "--pre", "sh", "x"), want: Ask},
		{name: "find -name", call: cmd(ws, "/usr/bin/find", "find", ".", "-name", "*.go"), want: Allow},
		{name: "find -delete", call: cmd(ws, "/usr/bin/find", "find", ".", "-delete"), want: Ask},
		{name: "find -exec is an interpreter", call: cmd(ws, "/usr/bin/find", "find", ".", "-exec", "rm", "{}", ";"), want: Ask, risk: RiskInterpreter},
		{name: "go test", call: cmd(ws, "/usr/local/go/bin/go", "go", "test", "./..."), want: Allow},
		{name: "go test -exec", call: cmd(ws, "/usr/local/go/bin/go", "go", "test", "-exec", "x", "./..."), want: Ask},
		{name: "plan go test denied", mode: ModePlan, call: cmd(ws, "/usr/local/go/bin/go", "go", "test"), want: Deny},
		{name: "plan cat allowed", mode: ModePlan, call: cmd(ws, "/usr/bin/cat", "cat", "main.go"), want: Allow},
		{name: "plan git log allowed", mode: ModePlan, call: git("log", "-5"), want: Allow},
		{name: "plan git commit denied", mode: ModePlan, call: git("commit"), want: Deny},
		{name: "cat outside workspace asks", call: cmd(ws, "/usr/bin/cat", "cat", "/etc/passwd"), want: Ask, risk: RiskOutsideWorkspace},
		{name: "cat ../ escapes", call: cmd(ws, "/usr/bin/cat", "cat", "../other/x"), want: Ask},
		{name: "ls with cwd outside asks", call: cmd("/var", "/usr/bin/ls", "ls"), want: Ask},
		{name: "./git is not git", call: cmd(ws, in("git"), "./git", "status"), want: Ask, rule: "command"},
		{name: "git from /tmp is not git", call: cmd(ws, "/tmp/bin/git", "git", "status"), want: Ask},
		{name: "unknown command asks", call: cmd(ws, "/usr/bin/docker", "docker", "ps"), want: Ask},
		// Unattended is auto's baseline with every ask a deny: sandboxed
		// commands run, what crosses the boundary is refused.
		{name: "unattended sandboxed command runs", mode: ModeUnattended, call: cmd(ws, "/usr/bin/docker", "docker", "ps"), want: Allow},
		{name: "unattended force-push denied", pol: bare, mode: ModeUnattended, call: git("push", "--force"), want: Deny},

		// Destructive patterns.
		{name: "force push", pol: bare, call: git("push", "--force"), want: Ask, risk: RiskDestructive},
		{name: "push -f", pol: bare, call: git("push", "-f", "origin", "main"), want: Ask, risk: RiskDestructive},
		{name: "push --force-with-lease", pol: bare, call: git("push", "--force-with-lease=main"), want: Ask, risk: RiskDestructive},
		{name: "push +refspec", pol: bare, call: git("push", "origin", "+main"), want: Ask, risk: RiskDestructive},
		{name: "plain push asks without destructive note", pol: bare, call: git("push"), want: Ask, rule: "command"},
		{name: "reset --hard", pol: bare, call: git("reset", "--hard", "HEAD~3"), want: Ask, risk: RiskDestructive},
		{name: "git -C dir reset --hard", pol: bare, call: git("-C", "sub", "reset", "--hard"), want: Ask, risk: RiskDestructive},
		{name: "clean -fdx", pol: bare, call: git("clean", "-fdx"), want: Ask, risk: RiskDestructive},
		{name: "accept-edits cannot loosen reset --hard", pol: bare, mode: ModeAcceptEdits, call: git("reset", "--hard"), want: Ask, rule: "destructive"},
		{name: "unattended reset --hard runs (checkpointed)", pol: bare, mode: ModeUnattended, call: git("reset", "--hard"), want: Allow},
		{name: "rm -rf .", pol: bare, call: rm("-rf", "."), want: Ask, risk: RiskDestructive},
		{name: "rm -r workspace root", pol: bare, call: cmd("/", "/usr/bin/rm", "rm", "-r", ws), want: Ask, risk: RiskDestructive},
		{name: "rm -rf *", pol: bare, call: rm("-rf", "*"), want: Ask, risk: RiskDestructive},
		{name: "rm -fr ~", pol: bare, call: rm("-fr", "~"), want: Ask, risk: RiskDestructive},
		{name: "rm -R /", pol: bare, call: rm("-R", "--", "/"), want: Ask, risk: RiskDestructive},
		{name: "rm -rf ancestor of workspace", pol: bare, call: rm("-rf", ".."), want: Ask, risk: RiskDestructive},
		{name: "rm -rf build is only a command", pol: bare, call: rm("-rf", "build"), want: Ask, rule: "command"},
		{name: "user deny beats destructive ask", call: git("push", "--force"), want: Deny, rule: "deny-git-push"},
		{name: "more specific allow beats deny", call: git("push", "origin", "main"), want: Allow, rule: "allow-git-push-origin"},
		{name: "allow not naming --force still asks", call: git("push", "origin", "--force"), want: Ask, rule: "destructive"},
		{name: "allow naming --force loosens", call: git("push", "--force", "mine"), want: Allow, rule: "allow-force-push-mine"},

		// Interpreters.
		{name: "bash", call: cmd(ws, "/usr/bin/bash", "bash", "-c", "ls"), want: Ask, risk: RiskInterpreter},
		{name: "python3", call: cmd(ws, "/usr/bin/python3", "python3", "x.py"), want: Ask, risk: RiskInterpreter},
		{name: "python3.12", call: cmd(ws, "/usr/bin/python3.12", "python3.12"), want: Ask, risk: RiskInterpreter},
		{name: "env", call: cmd(ws, "/usr/bin/env", "env", "FOO=1", "ls"), want: Ask, risk: RiskInterpreter},
		{name: "xargs", call: cmd(ws, "/usr/bin/xargs", "xargs", "rm"), want: Ask, risk: RiskInterpreter},
		{name: "make", call: cmd(ws, "/usr/bin/make", "make"), want: Ask, risk: RiskInterpreter},
		{name: "npx", call: cmd(ws, "/usr/bin/npx", "npx", "cowsay"), want: Ask, risk: RiskInterpreter},
		{name: "npm exec", call: cmd(ws, "/usr/bin/npm", "npm", "exec", "x"), want: Ask, risk: RiskInterpreter},
		{name: "sudo", call: cmd(ws, "/usr/bin/sudo", "sudo", "ls"), want: Ask, risk: RiskInterpreter},
		{name: "git -c is an interpreter", pol: bare, call: git("-c", "core.pager=sh", "log"), want: Ask, risk: RiskInterpreter},
		{name: "accept-edits cannot loosen bash", mode: ModeAcceptEdits, call: cmd(ws, "/bin/bash", "bash"), want: Ask, rule: "interpreter"},
		{name: "unattended bash in the sandbox runs", mode: ModeUnattended, call: cmd(ws, "/bin/bash", "bash"), want: Allow},
		{name: "plan bash denied", mode: ModePlan, call: cmd(ws, "/bin/bash", "bash"), want: Deny},
		{name: "rule naming python3 allows it", call: cmd(ws, "/usr/bin/python3", "python3", "-m", "pytest", "-q"), want: Allow, rule: "allow-pytest"},
		{name: "glob rule does not name bash", call: cmd(ws, "/opt/tools/bash", "bash"), want: Ask, rule: "interpreter"},
		{name: "glob rule allows other tools", call: cmd(ws, "/opt/tools/fmt", "fmt"), want: Allow, rule: "allow-opt-tools"},
		{name: "rule naming npm allows npm run lint", call: cmd(ws, "/usr/bin/npm", "npm", "run", "lint"), want: Allow},
		{name: "npm run build still asks", call: cmd(ws, "/usr/bin/npm", "npm", "run", "build"), want: Ask},
		{name: "rule naming go allows go generate", call: cmd(ws, "/usr/local/go/bin/go", "go", "generate", "./..."), want: Allow},
		{name: "builtin go generate asks", pol: bare, call: cmd(ws, "/usr/local/go/bin/go", "go", "generate"), want: Ask, risk: RiskInterpreter},
		{name: "workspace allow for bash ignored", call: cmd(ws, "/usr/bin/bash", "bash"), want: Ask},

		// Sensitive targets.
		{name: ".env in workspace asks", call: file(ToolReadFile, in(".env")), want: Ask, risk: RiskSensitive},
		{name: ".env.local asks in accept-edits", mode: ModeAcceptEdits, call: file(ToolReadFile, in("web/.env.local")), want: Ask, risk: RiskSensitive},
		{name: "plan .env asks", mode: ModePlan, call: file(ToolReadFile, in(".env")), want: Ask},
		{name: "unattended .env denied", mode: ModeUnattended, call: file(ToolReadFile, in(".env")), want: Deny},
		{name: "id_rsa", call: file(ToolReadFile, home+"/.ssh/id_rsa"), want: Ask, risk: RiskSensitive},
		{name: "id_rsa copy in workspace", call: file(ToolReadFile, in("keys/id_rsa.bak")), want: Ask, risk: RiskSensitive},
		{name: "rule naming .aws allows config", call: file(ToolReadFile, home+"/.aws/config"), want: Allow, rule: "allow-aws-config"},
		{name: "~/.aws/credentials asks", call: file(ToolReadFile, home+"/.aws/credentials"), want: Ask, risk: RiskSensitive},
		{name: "cat ~/.ssh key asks", call: cmd(ws, "/usr/bin/cat", "cat", "~/.ssh/id_ed25519"), want: Ask, risk: RiskSensitive},
		{name: "cat .env asks", call: cmd(ws, "/usr/bin/cat", "cat", "./.env"), want: Ask, risk: RiskSensitive},
		{name: "curl metadata", call: cmd(ws, "/usr/bin/wget", "wget", "http://169.254.169.254/latest/meta-data/"), want: Deny, risk: RiskSensitive},
		{name: "curl metadata builtin", pol: bare, call: cmd(ws, "/usr/bin/curl", "curl", "http://169.254.169.254/"), want: Ask, risk: RiskSensitive},
		{name: "--password argument", call: cmd(ws, "/usr/bin/mysql", "mysql", "--password=hunter2"), want: Ask, risk: RiskSensitive},
		{name: "echo of a TOKEN asks", call: cmd(ws, "/usr/bin/echo", "echo", "MY_TOKEN"), want: Ask, rule: "sensitive"},
		{name: "Secret is case-insensitive", pol: bare, call: cmd(ws, "/usr/bin/grep", "grep", "-r", "ClientSecret"), want: Ask, risk: RiskSensitive},
		{name: "rule naming token allows gh auth token", call: cmd(ws, "/usr/bin/gh", "gh", "auth", "token"), want: Allow, rule: "allow-gh-auth-token"},
		{name: "tokenizer.go is not sensitive", call: file(ToolReadFile, in("tokenizer.go")), want: Allow},
		{name: "secrets.yaml is sensitive", call: file(ToolReadFile, in("config/secrets.yaml")), want: Ask, risk: RiskSensitive},
		{name: "go test of a secrets package", call: cmd(ws, "/usr/local/go/bin/go", "go", "test", "./backend/secrets/..."), want: Allow},

		// fetch_url and domains.
		{name: "workspace tightens go.dev", call: fetch("https://go.dev/doc/"), want: Ask, rule: "ws-ask-go-dev"},
		{name: "wildcard domain", call: fetch("https://pkg.golang.org/x"), want: Allow, rule: "allow-docs"},
		{name: "wildcard excludes apex", call: fetch("https://golang.org/"), want: Ask},
		{name: "domain case and dot", call: fetch("https://PKG.Golang.ORG./x"), want: Allow},
		{name: "suffix is not subdomain", call: fetch("https://evilgolang.org/"), want: Ask},
		{name: "denied domain", call: fetch("https://a.b.evil.example/"), want: Deny, rule: "deny-evil"},
		{name: "unlisted domain asks", call: fetch("https://example.com/"), want: Ask, rule: "fetch"},
		{name: "plan fetch unlisted denied", mode: ModePlan, call: fetch("https://example.com/"), want: Deny},
		{name: "plan fetch allowed domain", mode: ModePlan, call: fetch("https://pkg.golang.org/"), want: Allow},
		{name: "unattended fetch unlisted denied", mode: ModeUnattended, call: fetch("https://example.com/"), want: Deny},
		{name: "fetch metadata", pol: bare, call: fetch("http://169.254.169.254/latest/"), want: Ask, risk: RiskSensitive},
		{name: "allowed domain with token in URL asks", call: fetch("https://pkg.golang.org/?access_token=x"), want: Ask, risk: RiskSensitive},
		{name: "bad URL denied", call: fetch("::not a url"), want: Deny, rule: "bad-url"},

		// Workspace tighten-only.
		{name: "user allow gh pr list", call: cmd(ws, "/usr/bin/gh", "gh", "pr", "list"), want: Allow, rule: "allow-gh-pr"},
		{name: "workspace denies gh pr merge", call: cmd(ws, "/usr/bin/gh", "gh", "pr", "merge", "1"), want: Deny, rule: "ws-deny-merge"},
		{name: "workspace asks for private reads", call: file(ToolReadFile, in("private/notes.txt")), want: Ask, rule: "ws-ask-private"},
		{name: "workspace path rule sees command args", call: cmd(ws, "/usr/bin/cat", "cat", "private/x"), want: Ask, rule: "ws-ask-private"},

		// Precedence at equal specificity.
		{name: "ask beats allow", call: cmd(ws, "/usr/bin/curl", "curl", "https://x"), want: Ask, rule: "ask-curl"},
		{name: "deny beats allow", call: cmd(ws, "/usr/bin/wget", "wget", "x"), want: Deny, rule: "deny-wget"},

		// Session grants.
		{name: "grant allows docker ps", call: cmd(ws, "/usr/bin/docker", "docker", "ps", "-a"),
			grants: []Rule{RuleFromCall(cmd(ws, "/usr/bin/docker", "docker", "ps"), ScopeSession)}, want: Allow},
		{name: "grant does not reach docker run", call: cmd(ws, "/usr/bin/docker", "docker", "run", "x"),
			grants: []Rule{RuleFromCall(cmd(ws, "/usr/bin/docker", "docker", "ps"), ScopeSession)}, want: Ask},
		{name: "grant for a path", mode: ModeDefault, call: file(ToolWriteFile, in("a.go")),
			grants: []Rule{RuleFromCall(file(ToolWriteFile, in("a.go")), ScopeSession)}, want: Allow},
		{name: "grant of bash names it", call: cmd(ws, "/usr/bin/bash", "bash", "build.sh"),
			grants: []Rule{RuleFromCall(cmd(ws, "/usr/bin/bash", "bash", "build.sh"), ScopeSession)}, want: Allow},
		{name: "grant does not escape workspace deny", mode: ModeAcceptEdits, call: file(ToolWriteFile, in("vendor/a.go")),
			grants: []Rule{RuleFromCall(file(ToolWriteFile, in("vendor/a.go")), ScopeSession)}, want: Deny},
		{name: "plan ceiling beats grant", mode: ModePlan, call: file(ToolWriteFile, in("a.go")),
			grants: []Rule{RuleFromCall(file(ToolWriteFile, in("a.go")), ScopeSession)}, want: Deny},
		{name: "deny grant is ignored", call: file(ToolReadFile, in("a.go")),
			grants: []Rule{{Action: Deny, Tool: ToolReadFile}}, want: Allow},

		// Odds and ends.
		{name: "ask_human in plan", mode: ModePlan, call: Action{Tool: ToolAskHuman}, want: Allow},
		{name: "ask_human unattended", mode: ModeUnattended, call: Action{Tool: ToolAskHuman}, want: Allow},
		{name: "unknown tool", call: Action{Tool: "format_disk"}, want: Deny, rule: "unknown-tool"},
		{name: "unknown mode", mode: "yolo", call: file(ToolReadFile, in("a")), want: Deny, rule: "unknown-mode"},
	}
	if len(cases) < 60 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pol := c.pol
			if pol == nil {
				pol = user
			}
			s := Session{Mode: orAsk(c.mode), Workspaces: []string{ws}, Home: home, Grants: c.grants, Sandboxed: true}
			d := pol.Decide(s, c.call)
			if d.Verdict != c.want {
				t.Fatalf("verdict %s, want %s (reason: %s; rule: %s)", d.Verdict, c.want, d.Reason, d.Rule)
			}
			if c.rule != "" && d.Rule.ID != c.rule {
				t.Errorf("rule %s, want id %q (reason: %s)", d.Rule, c.rule, d.Reason)
			}
			if c.risk != "" && !hasRisk(d, c.risk) {
				t.Errorf("risks %+v, want %s", d.Risks, c.risk)
			}
			if d.Reason == "" {
				t.Error("empty reason")
			}
		})
	}
	t.Logf("%d cases", len(cases))
}

func hasRisk(d Decision, k RiskKind) bool {
	for _, r := range d.Risks {
		if r.Kind == k {
			return true
		}
	}
	return false
}

func TestDecisionPointsAtFileAndLine(t *testing.T) {
	f := newFixture(t)
	p, err := Load(f.userFile, []string{f.ws})
	if err != nil {
		t.Fatal(err)
	}
	s := Session{Mode: ModeAsk, Workspaces: []string{f.ws}, Home: f.home}
	d := p.Decide(s, Action{Tool: ToolFetchURL, URL: "https://x.evil.example/"})
	if d.Rule.Source != SourceUser || d.Rule.File != f.userFile || d.Rule.Line == 0 {
		t.Fatalf("rule ref %+v", d.Rule)
	}
	line := strings.Split(userPolicyTOML, "\n")[d.Rule.Line-1]
	if line != "[[rule]]" {
		t.Fatalf("line %d is %q, want the [[rule]] header", d.Rule.Line, line)
	}
	if !strings.Contains(d.Reason, "known bad") {
		t.Errorf("reason %q lacks the rule's reason", d.Reason)
	}
	d = p.Decide(s, Action{Tool: ToolWriteFile, Paths: []string{f.ws + "/vendor/a"}, Cwd: f.ws})
	if d.Rule.Source != SourceWorkspace || d.Rule.File != filepath.Join(f.ws, WorkspacePolicyFile) {
		t.Fatalf("workspace rule ref %+v", d.Rule)
	}
	notices := p.Notices()
	if len(notices) != 1 || !strings.Contains(notices[0], "ws-allow-bash") || !strings.Contains(notices[0], "only tighten") {
		t.Fatalf("notices %q", notices)
	}
}

func TestGoalDrift(t *testing.T) {
	p := Builtin()
	ws := "/home/u/proj"
	read := func(path, goal string) Decision {
		return p.Decide(Session{Mode: ModeAcceptEdits, Workspaces: []string{ws}, Home: "/home/u", Goal: goal},
			Action{Tool: ToolReadFile, Paths: []string{path}})
	}
	cases := []struct {
		name, path, goal string
		drift            bool
	}{
		{"no goal, no flag", ws + "/.env", "", false},
		{"goal names the secret", ws + "/.env", "fix the DATABASE_URL in .env", false},
		{"goal never mentions it", ws + "/.env", "rename the http handler", true},
		{"ordinary file", ws + "/main.go", "rename the http handler", false},
	}
	for _, tc := range cases {
		d := read(tc.path, tc.goal)
		got := false
		for _, r := range d.Risks {
			if r.Kind == RiskDrift {
				got = true
			}
		}
		if got != tc.drift || (tc.drift && d.Verdict == Allow) {
			t.Errorf("%s: drift=%v verdict=%v risks=%v", tc.name, got, d.Verdict, d.Risks)
		}
	}
}

// orAsk keeps the table's cases on ask mode (the first releases' default)
// unless a case names its mode; auto mode has its own table.
func orAsk(m Mode) Mode {
	if m == "" {
		return ModeAsk
	}
	return m
}

// TestAutoMode: auto asks only at the boundary. Reads, workspace edits and
// sandboxed commands, interpreters included, run without a card; outside
// paths, protected and secret paths, unconfined commands, fetches and a
// force-push ask; with no sandbox everything but reads asks.
func TestAutoMode(t *testing.T) {
	f := newFixture(t)
	p := Builtin()
	ws, home := f.ws, f.home
	in, cmd := f.in, f.cmd
	cases := []struct {
		name      string
		call      Action
		sandboxed bool
		want      Verdict
		rule      string
	}{
		{"read in the workspace", Action{Tool: ToolReadFile, Paths: []string{in("main.go")}}, true, Allow, "workspace-read"},
		{"read outside", Action{Tool: ToolReadFile, Paths: []string{"/etc/hosts"}}, true, Ask, "outside-workspace"},
		{"read a workspace secret", Action{Tool: ToolReadFile, Paths: []string{in(".env")}}, true, Ask, "sensitive"},
		{"edit in the workspace", Action{Tool: ToolEditFile, Paths: []string{in("main.go")}}, true, Allow, "workspace-edit"},
		{"write a git hook", Action{Tool: ToolWriteFile, Paths: []string{in(".git/hooks/pre-commit")}}, true, Ask, "protected"},
		{"write outside", Action{Tool: ToolWriteFile, Paths: []string{home + "/x"}}, true, Ask, "outside-workspace"},
		{"go test", cmd("/usr/local/go/bin/go", "go", "test", "./..."), true, Allow, "sandboxed-command"},
		{"python one-liner in the sandbox", cmd("/usr/bin/python3", "python3", "-c", "print(1)"), true, Allow, "sandboxed-command"},
		{"sh -c in the sandbox", cmd("/bin/sh", "sh", "-c", "make && make test"), true, Allow, "sandboxed-command"},
		{"git commit", cmd("/usr/bin/git", "git", "commit", "-m", "x"), true, Allow, "sandboxed-command"},
		{"rm -rf of the root is checkpointed", cmd("/usr/bin/rm", "rm", "-rf", "."), true, Allow, "sandboxed-command"},
		{"an argument naming a token", cmd("/usr/bin/grep", "grep", "-r", "token", "."), true, Allow, "sandboxed-command"},
		{"force-push leaves the workspace", cmd("/usr/bin/git", "git", "push", "--force"), true, Ask, "destructive"},
		{"unconfined command", Action{Tool: ToolRunCommand, Binary: "/bin/bash", Argv: []string{"bash", "-c", "ls"}, Cwd: ws, Unconfined: true}, true, Ask, "unconfined"},
		{"fetch", Action{Tool: ToolFetchURL, URL: "https://pkgs.example.test/"}, true, Ask, "fetch"},
		{"no sandbox: a command asks", cmd("/usr/bin/python3", "python3", "x.py"), false, Ask, "no-sandbox"},
		{"no sandbox: an edit asks", Action{Tool: ToolEditFile, Paths: []string{in("main.go")}}, false, Ask, "no-sandbox"},
		{"no sandbox: a read runs", Action{Tool: ToolReadFile, Paths: []string{in("main.go")}}, false, Allow, "workspace-read"},
	}
	for _, tc := range cases {
		s := Session{Mode: ModeAuto, Workspaces: []string{ws}, Home: home, Sandboxed: tc.sandboxed}
		d := p.Decide(s, tc.call)
		if d.Verdict != tc.want || d.Rule.ID != tc.rule {
			t.Errorf("%s: %v by %s (%s), want %v by %s", tc.name, d.Verdict, d.Rule.ID, d.Reason, tc.want, tc.rule)
		}
	}
	// "default" is auto unless configured otherwise.
	if m, err := ParseMode("default"); err != nil || m != ModeAuto {
		t.Fatalf("ParseMode(default) = %v %v", m, err)
	}
	if _, err := ParseMode("yolo"); err == nil || !strings.Contains(err.Error(), "plan, ask, auto, accept-edits or unattended") {
		t.Fatalf("ParseMode(yolo) = %v", err)
	}
}

// The card shows an interpreter risk as "Runs code: allowing this grants
// arbitrary code execution inside the sandbox" followed by its detail, so
// the detail says only what the call does; a reason built from the risk
// still says what it means.
func TestInterpreterRiskSaysItsMeaningOnce(t *testing.T) {
	ws := t.TempDir()
	s := Session{Mode: ModeAsk, Workspaces: []string{ws}, Home: t.TempDir(), Sandboxed: true}
	tests := []struct {
		name   string
		call   Action
		detail string
	}{
		{"an interpreter", Action{Tool: ToolRunCommand, Binary: "/usr/bin/python3", Cwd: ws, Argv: []string{"python3", "-c", "print(1)"}}, "python3 is an interpreter"},
		{"a package runner", Action{Tool: ToolRunCommand, Binary: "/usr/bin/npm", Cwd: ws, Argv: []string{"npm", "test"}}, "npm test runs package scripts"},
		{"git -c", Action{Tool: ToolRunCommand, Binary: "/usr/bin/git", Cwd: ws, Argv: []string{"git", "-c", "core.pager=sh", "log"}}, "git -c can make git run any program"},
		{"find -exec", Action{Tool: ToolRunCommand, Binary: "/usr/bin/find", Cwd: ws, Argv: []string{"find", ".", "-exec", "rm", "{}", ";"}}, "find -exec runs other programs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Builtin().Decide(s, tt.call)
			var risk *Risk
			for i := range d.Risks {
				if d.Risks[i].Kind == RiskInterpreter {
					risk = &d.Risks[i]
				}
			}
			if risk == nil {
				t.Fatalf("no interpreter risk in %+v", d)
			}
			if risk.Detail != tt.detail {
				t.Errorf("detail = %q, want %q (the card says what running code means)", risk.Detail, tt.detail)
			}
			if strings.Count(d.Reason+" "+risk.Detail, "arbitrary code execution") > 1 {
				t.Errorf("the reason and the detail say it twice: %q / %q", d.Reason, risk.Detail)
			}
			if d.Verdict == Ask && d.Rule.ID == string(RiskInterpreter) && d.Reason != tt.detail+": "+runsCode {
				t.Errorf("reason = %q, want the detail and what it means", d.Reason)
			}
		})
	}
}
