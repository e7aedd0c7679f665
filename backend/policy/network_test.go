package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNetworkRulesLoad(t *testing.T) {
	bad := []struct{ name, rule, want string }{
		{"no domains", "tool = \"network\"\n", "needs domains"},
		{"ports elsewhere", "tool = \"fetch_url\"\ndomains = [\"x.example.test\"]\nports = [443]\n", "ports only apply"},
		{"binary", "tool = \"network\"\nbinary = \"/bin/x\"\ndomains = [\"x.example.test\"]\n", "domains and ports only"},
		{"bad port", "tool = \"network\"\ndomains = [\"x.example.test\"]\nports = [0]\n", "between 1 and 65535"},
		{"url", "tool = \"network\"\ndomains = [\"https://x.example.test/\"]\n", "host name"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := parseUser([]byte("[[rule]]\naction = \"allow\"\n"+tc.rule), "policy.toml")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want it to say %q", err, tc.want)
			}
		})
	}
}

func TestDecideNetwork(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "policy.toml")
	write(t, user, `
[[rule]]
action = "allow"
tool = "network"
domains = ["pkgs.example.test", "*.cdn.example.test"]

[[rule]]
action = "allow"
tool = "network"
domains = ["git.example.test"]
ports = [8443]

[[rule]]
action = "deny"
tool = "network"
domains = ["bad.cdn.example.test"]
`)
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(filepath.Join(ws, ".gatehouse"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ws, WorkspacePolicyFile), `
[[rule]]
action = "ask"
tool = "network"
domains = ["pkgs.example.test"]
ports = [80]
`)
	p, err := Load(user, []string{ws})
	if err != nil {
		t.Fatal(err)
	}
	grant := NetworkRule("granted.example.test", 443, ScopeSession)
	tests := []struct {
		mode   Mode
		domain string
		port   int
		want   Verdict
	}{
		{ModeDefault, "pkgs.example.test", 443, Allow},
		{ModeDefault, "pkgs.example.test", 80, Ask}, // the workspace can only tighten
		{ModeDefault, "pkgs.example.test", 8443, Ask},
		{ModeDefault, "a.cdn.example.test", 443, Allow},
		{ModeDefault, "cdn.example.test", 443, Ask},
		{ModeDefault, "bad.cdn.example.test", 443, Deny},
		{ModeDefault, "git.example.test", 8443, Allow},
		{ModeDefault, "git.example.test", 443, Ask},
		{ModeDefault, "granted.example.test", 443, Allow},
		{ModeDefault, "other.example.test", 443, Ask},
		{ModeUnattended, "other.example.test", 443, Deny},
		{ModeUnattended, "pkgs.example.test", 443, Allow},
		{ModePlan, "other.example.test", 443, Deny},
		{Mode("bogus"), "pkgs.example.test", 443, Deny},
	}
	for _, tc := range tests {
		d := p.DecideNetwork(Session{Mode: tc.mode, Workspaces: []string{ws}, Grants: []Rule{grant}}, tc.domain, tc.port)
		if d.Verdict != tc.want {
			t.Errorf("%s %s:%d = %s (%s), want %s", tc.mode, tc.domain, tc.port, d.Verdict, d.Reason, tc.want)
		}
	}
	// A network rule never decides an MCP tool call, nor a fetch rule a
	// connection.
	if d := p.Decide(Session{Workspaces: []string{ws}}, Action{Tool: ToolFetchURL, URL: "https://pkgs.example.test/"}); d.Verdict != Ask {
		t.Errorf("fetch_url decided by a network rule: %+v", d)
	}
	if d := p.Decide(Session{}, Action{Tool: ToolNetwork}); d.Verdict != Deny {
		t.Errorf("network as an MCP tool: %+v", d)
	}
}

// "Always" on a network card writes a rule that loads back and allows
// the same domain and port.
func TestNetworkRuleAppends(t *testing.T) {
	user := filepath.Join(t.TempDir(), "policy.toml")
	for _, c := range []struct {
		port int
		text string
	}{
		{443, "[[rule]]\nid = \"allow-network-pkgs.example.test\"\naction = \"allow\"\ntool = \"network\"\ndomains = [\"pkgs.example.test\"]\nreason = \"approved always\"\n"},
		{8443, "ports = [8443]\n"},
	} {
		r := NetworkRule("pkgs.example.test", c.port, ScopeAlways)
		if !strings.Contains(r.String(), c.text) {
			t.Errorf("rule for port %d:\n%s", c.port, r.String())
		}
		if err := AppendRule(user, r); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Load(user, nil)
	if err != nil {
		b, _ := os.ReadFile(user)
		t.Fatalf("%v\n%s", err, b)
	}
	for _, port := range []int{443, 80, 8443} {
		if d := p.DecideNetwork(Session{}, "pkgs.example.test", port); d.Verdict != Allow {
			t.Errorf("port %d: %+v", port, d)
		}
	}
	if d := p.DecideNetwork(Session{}, "pkgs.example.test", 22); d.Verdict != Ask {
		t.Errorf("port 22: %+v", d)
	}
}

// TestUnruled: a verdict no rule made is told apart from a rule's, in
// every mode; a managed rule, a user's deny or a grant is a rule's.
func TestUnruled(t *testing.T) {
	user := filepath.Join(t.TempDir(), "policy.toml")
	write(t, user, `
[[rule]]
action = "deny"
tool = "network"
domains = ["db.example.test"]
ports = [5432]
`)
	p, err := Load(user, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		mode          Mode
		domain        string
		unruled, plan bool
	}{
		{ModeAuto, "localhost", true, false},
		{ModeUnattended, "localhost", true, false},
		{ModePlan, "localhost", false, true},
		{ModeAuto, "db.example.test", false, false},
		{ModeUnattended, "db.example.test", false, false},
	}
	for _, tc := range cases {
		d := p.DecideNetwork(Session{Mode: tc.mode}, tc.domain, 5432)
		if d.Unruled() != tc.unruled || d.PlanRefusal() != tc.plan {
			t.Errorf("%s %s: %+v: unruled %v plan %v, want %v %v", tc.mode, tc.domain, d, d.Unruled(), d.PlanRefusal(), tc.unruled, tc.plan)
		}
	}
}
