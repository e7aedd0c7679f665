package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/agentprofile"
	"github.com/gatehouse-dev/gatehouse/sandbox/agentbox"
)

// A protected link keeps its name uncreatable, and what it leads to
// read-only only where the run shows that anyway.
func TestKeepLinks(t *testing.T) {
	base := t.TempDir()
	ws, state, outside := filepath.Join(base, "ws"), filepath.Join(base, "state"), filepath.Join(base, "home")
	for _, d := range []string{filepath.Join(ws, "cfg", "claude"), state, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(ws, "CLAUDE.md"), filepath.Join(outside, "key"), filepath.Join(state, "notes")} {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{".claude": "cfg/claude", ".envrc": filepath.Join(outside, "key"), "AGENTS.md": filepath.Join(state, "notes")}
	for name, to := range links {
		if err := os.Symlink(to, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	p := func(n string) string { return filepath.Join(ws, n) }
	s := agentbox.Spec{Workspaces: []string{ws}, ReadWrite: []string{state}, Protected: []string{p("CLAUDE.md"), p(".claude"), p(".envrc"), p("AGENTS.md")}}
	keepLinks(&s)
	if want := []string{p("CLAUDE.md"), p(".claude"), p("AGENTS.md")}; !slices.Equal(s.Protected, want) {
		t.Errorf("protected %q, want %q (nothing of the home's key bound in)", s.Protected, want)
	}
	if want := []string{p(".claude"), p(".envrc"), p("AGENTS.md")}; !slices.Equal(s.Uncreatable, want) {
		t.Errorf("uncreatable %q, want every link's name %q", s.Uncreatable, want)
	}
}

// The directories an agent's flags name outside the run's workspaces are
// said; those inside them, missing ones, and another program's flags,
// are not.
func TestOutsideDirsNotice(t *testing.T) {
	base := t.TempDir()
	proj, other := filepath.Join(base, "proj"), filepath.Join(base, "other")
	for _, d := range []string{filepath.Join(proj, "sub"), other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p, _ := agentprofile.Lookup("claude")
	r, err := p.Resolve(func(string) string { return "" }, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"/usr/bin/claude", "--add-dir", "../other", "sub", "../missing", "-p", "hi"}, "claude will not see " + other + ": the run shows only its workspaces, " + proj},
		{[]string{"/usr/bin/claude", "--add-dir", "sub"}, ""},
		{[]string{"/usr/bin/make", "--add-dir", "../other"}, ""},
	} {
		l := runLayout{profile: &r, argv: tc.argv, cwd: proj, workspaces: []string{proj}, dirs: namedDirs(r.Profile, tc.argv, proj)}
		got := outsideDirsNotice(l)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.argv, got, tc.want)
		}
	}
}

// TestConfinedEnvNodeProxy: a plain command run confined gets Node's
// switch for the proxy variables; an agent with a profile does not (it
// sets up its proxy itself).
func TestConfinedEnvNodeProxy(t *testing.T) {
	p, ok := agentprofile.Lookup("claude")
	if !ok {
		t.Fatal("no claude profile")
	}
	const quiet = `--require="/c/quiet.cjs"`
	for _, tc := range []struct {
		name     string
		profile  *agentprofile.Resolved
		own      string // the person's NODE_OPTIONS
		want     bool
		wantOpts string
	}{
		{"a plain command", nil, "", true, "NODE_OPTIONS=" + quiet},
		{"a plain command, with the person's options", nil, "--max-old-space-size=4096", true, "NODE_OPTIONS=--max-old-space-size=4096 " + quiet},
		{"an agent", &agentprofile.Resolved{Profile: p}, "--max-old-space-size=4096", false, "NODE_OPTIONS=--max-old-space-size=4096"},
	} {
		environ := []string{"PATH=/usr/bin"}
		if tc.own != "" {
			environ = append(environ, "NODE_OPTIONS="+tc.own)
		}
		env := confinedEnv(environ, "/home/me", runLayout{profile: tc.profile, runID: "r1", agentPort: 7465, nodeOptions: quiet})
		if got := slices.Contains(env, "NODE_USE_ENV_PROXY=1"); got != tc.want {
			t.Errorf("%s: NODE_USE_ENV_PROXY=1 in its env: %v, want %v", tc.name, got, tc.want)
		}
		var opts []string
		for _, e := range env {
			if strings.HasPrefix(e, "NODE_OPTIONS=") {
				opts = append(opts, e)
			}
		}
		if len(opts) != 1 || opts[0] != tc.wantOpts {
			t.Errorf("%s: %q, want %q", tc.name, opts, tc.wantOpts)
		}
	}
}
