package policy

import (
	_ "embed"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// managedTOML is the organisation's file: a deny, an ask and a network deny.
//
//go:embed testdata/managed-policy.toml
var managedTOML string

// looseUserTOML and looseWorkspaceTOML are the person's and the
// workspace's own rules, each trying to loosen one of the organisation's.
//
//go:embed testdata/loose-user-policy.toml
var looseUserTOML string

//go:embed testdata/loose-workspace-policy.toml
var looseWorkspaceTOML string

// managedFixture writes the files; the managed one root-owned 0644 in a
// root-owned 0700 directory, as /etc/gatehouse would be.
func managedFixture(t *testing.T, managed string) (mpath, user, ws, home string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a root-owned managed policy file (the integration tests run as root)")
	}
	d := t.TempDir()
	home = filepath.Join(d, "home")
	ws = filepath.Join(home, "proj")
	if err := os.MkdirAll(filepath.Join(ws, ".gatehouse"), 0o755); err != nil {
		t.Fatal(err)
	}
	mdir := filepath.Join(d, "etc-gatehouse")
	if err := os.Mkdir(mdir, 0o755); err != nil {
		t.Fatal(err)
	}
	mpath = filepath.Join(mdir, "policy.toml")
	write(t, mpath, managed)
	if err := os.Chown(mpath, 0, 0); err != nil {
		t.Fatal(err)
	}
	user = filepath.Join(d, "policy.toml")
	write(t, user, looseUserTOML)
	write(t, filepath.Join(ws, WorkspacePolicyFile), looseWorkspaceTOML)
	return mpath, user, ws, home
}

// A managed deny (or ask) beats the person's rules, the workspace's,
// session grants (a card's "this session") and "always" rules (which are
// user rules), in every mode; what it does not name is untouched.
func TestManagedPolicyBeatsEveryLooserRule(t *testing.T) {
	mpath, user, ws, home := managedFixture(t, managedTOML)
	p, err := LoadWith(mpath, user, []string{ws})
	if err != nil {
		t.Fatal(err)
	}
	curl := Action{Tool: ToolRunCommand, Binary: "/usr/bin/curl", Cwd: ws, Argv: []string{"curl", "-s", "https://api.example.test/"}}
	tf := Action{Tool: ToolRunCommand, Binary: "/usr/bin/terraform", Cwd: ws, Argv: []string{"terraform", "apply"}}
	mk := Action{Tool: ToolRunCommand, Binary: "/usr/bin/make", Cwd: ws, Argv: []string{"make", "test"}}
	grantCurl := RuleFromCall(curl, ScopeSession)
	grantTF := RuleFromCall(tf, ScopeSession)
	tests := []struct {
		name   string
		mode   Mode
		call   Action
		grants []Rule
		want   Verdict
		rule   string
	}{
		{"user allow rule", ModeAuto, curl, nil, Deny, "org-no-curl"},
		{"session grant from a card", ModeAuto, curl, []Rule{grantCurl}, Deny, "org-no-curl"},
		{"accept-edits", ModeAcceptEdits, curl, []Rule{grantCurl}, Deny, "org-no-curl"},
		{"unattended", ModeUnattended, curl, nil, Deny, "org-no-curl"},
		{"managed ask beats a user allow", ModeAuto, tf, nil, Ask, "org-ask-terraform"},
		{"managed ask beats a session grant", ModeAuto, tf, []Rule{grantTF}, Ask, "org-ask-terraform"},
		{"managed ask in unattended is a deny", ModeUnattended, tf, nil, Deny, "org-ask-terraform"},
		{"what it does not name is untouched", ModeAuto, mk, nil, Allow, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := p.Decide(Session{Mode: tt.mode, Workspaces: []string{ws}, Home: home, Grants: tt.grants, Sandboxed: true}, tt.call)
			if d.Verdict != tt.want {
				t.Fatalf("verdict = %v (%s), want %v", d.Verdict, d.Reason, tt.want)
			}
			if tt.rule == "" {
				if d.Rule.Source == SourceManaged {
					t.Fatalf("decided by the managed rule %s", d.Rule)
				}
				return
			}
			if d.Rule.ID != tt.rule || d.Rule.Source != SourceManaged || !strings.Contains(d.Reason, OrgSays) {
				t.Fatalf("rule = %v, reason = %q; want managed %s and %q", d.Rule, d.Reason, tt.rule, OrgSays)
			}
		})
	}
	// The network too: a user network rule and a card's grant do not
	// open what the organisation closed.
	grant := NetworkRule("paste.example.test", 443, ScopeSession)
	d := p.DecideNetwork(Session{Mode: ModeAuto, Workspaces: []string{ws}, Home: home, Grants: []Rule{grant}, Sandboxed: true}, "paste.example.test", 443)
	if d.Verdict != Deny || d.Rule.ID != "org-no-paste" {
		t.Fatalf("network decision = %v (%s)", d.Verdict, d.Reason)
	}
	// The Policy screen lists the organisation's rules first, saying so.
	eff := p.Effective(ModeAuto)
	var managed []RuleInfo
	for _, r := range eff {
		if r.Stage == StageManaged {
			managed = append(managed, r)
		}
	}
	if len(managed) != 3 || managed[0].ID != "org-no-curl" || !strings.HasPrefix(managed[0].Reason, OrgSays) || eff[2].Stage != StageManaged {
		t.Fatalf("managed rules on the Policy screen = %+v", managed)
	}
}

// A managed file that does not parse refuses every call, saying why,
// until it is fixed; a file only root could not have written is ignored,
// with a notice; a missing one is no managed policy.
func TestManagedPolicyFileStates(t *testing.T) {
	curl := func(ws string) Action {
		return Action{Tool: ToolRunCommand, Binary: "/usr/bin/curl", Cwd: ws, Argv: []string{"curl", "-s", "https://api.example.test/"}}
	}
	tests := []struct {
		name       string
		content    string
		prepare    func(t *testing.T, path string)
		want       Verdict
		reason     string
		noticeSays string
	}{
		{name: "broken", content: "[[rule]\nid = ", want: Deny, reason: "does not load"},
		{name: "unknown key", content: "[[rule]]\nid = \"x\"\naction = \"deny\"\ntol = \"run_command\"\n", want: Deny, reason: "every call is refused until it is fixed"},
		{name: "owned by the person", content: managedTOML, prepare: func(t *testing.T, p string) {
			if err := os.Chown(p, 1000, 1000); err != nil {
				t.Fatal(err)
			}
		}, want: Allow, noticeSays: "owned by uid 1000"},
		{name: "group-writable", content: managedTOML, prepare: func(t *testing.T, p string) {
			if err := os.Chmod(p, 0o664); err != nil {
				t.Fatal(err)
			}
		}, want: Allow, noticeSays: "writable by group or others"},
		{name: "in a directory others can write", content: managedTOML, prepare: func(t *testing.T, p string) {
			if err := os.Chmod(filepath.Dir(p), 0o777); err != nil {
				t.Fatal(err)
			}
		}, want: Allow, noticeSays: "writable by group or others"},
		{name: "missing", content: managedTOML, prepare: func(t *testing.T, p string) {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}, want: Allow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mpath, user, ws, home := managedFixture(t, tt.content)
			if tt.prepare != nil {
				tt.prepare(t, mpath)
			}
			p, err := LoadWith(mpath, user, []string{ws})
			if err != nil {
				t.Fatalf("a managed file must not stop the daemon loading: %v", err)
			}
			d := p.Decide(Session{Mode: ModeAuto, Workspaces: []string{ws}, Home: home, Sandboxed: true}, curl(ws))
			if d.Verdict != tt.want || !strings.Contains(d.Reason, tt.reason) {
				t.Fatalf("verdict = %v (%s), want %v saying %q", d.Verdict, d.Reason, tt.want, tt.reason)
			}
			if tt.want == Deny {
				if n := p.DecideNetwork(Session{Mode: ModeAuto, Home: home}, "api.example.test", 443); n.Verdict != Deny {
					t.Fatalf("a broken managed policy let the network through: %v", n)
				}
			}
			notices := strings.Join(p.Notices(), "\n")
			if tt.noticeSays != "" && (!strings.Contains(notices, tt.noticeSays) || !strings.Contains(notices, "ignored")) {
				t.Fatalf("notices = %q, want one saying %q and ignored", notices, tt.noticeSays)
			}
		})
	}
}

// Fixing the file is noticed without a restart.
func TestManagedPolicyChangeNoticed(t *testing.T) {
	mpath, user, ws, _ := managedFixture(t, "[[rule]\n")
	p, _ := LoadWith(mpath, user, []string{ws})
	if p.ManagedError() == nil || p.ManagedChanged() {
		t.Fatalf("broken file: err %v, changed %v", p.ManagedError(), p.ManagedChanged())
	}
	write(t, mpath, managedTOML+"\n# fixed\n")
	if !p.ManagedChanged() {
		t.Fatal("the fixed file is not seen as changed")
	}
}

// The test-only path applies only where there is no real managed file.
func TestManagedPathTestOnlyEnv(t *testing.T) {
	real := "/etc/gatehouse/policy.toml"
	if runtime.GOOS == "darwin" {
		real = "/Library/Application Support/Gatehouse/policy.toml"
	}
	t.Setenv(ManagedPathTestOnlyEnv, "/tmp/managed-test.toml")
	want := "/tmp/managed-test.toml"
	if _, err := os.Lstat(real); err == nil {
		want = real
	}
	if got := ManagedPath(); got != want {
		t.Fatalf("ManagedPath() = %q, want %q", got, want)
	}
}
