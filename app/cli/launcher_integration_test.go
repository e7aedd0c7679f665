//go:build integration

package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// fakeClaude is a stand-in agent named like the claude profile: it says
// who and where it is, whether the run's file is there, what its home
// holds, and its arguments.
const fakeClaude = `#!/bin/sh
echo "uid=$(id -u)"
echo "home=$HOME"
if [ -f /run/gatehouse/run.json ]; then echo runfile=yes; else echo runfile=no; fi
ls -a "$HOME"
echo "args=$*"
`

// TestLauncherRunsTheAgentConfined: `gatehouse install claude --confine`
// writes a launcher and prints the PATH line; typed with that line in
// place, `claude` runs the real one confined, in its own home; with no
// real one it says so at once rather than finding itself; typed inside a
// confined run it starts the agent there, in no run of its own; and
// --uninstall removes it.
func TestLauncherRunsTheAgentConfined(t *testing.T) {
	home := isolatedHome(t)
	d := clitest.Start(t)
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(fakeClaude), 0o755); err != nil {
		t.Fatal(err)
	}
	shims := filepath.Join(d.Data, "shims")
	shim := filepath.Join(shims, "claude")
	basePath := os.Getenv("PATH")

	out, errOut, code := d.CLI(t.Context(), "install", "gemini")
	if code != 0 || !strings.Contains(out, "gatehouse install gemini --confine") {
		t.Fatalf("install without --confine should name it: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = d.CLI(t.Context(), "install", "claude", "--confine")
	if code != 0 || !strings.Contains(out, "created   "+shim) || !strings.Contains(out, `export PATH="`+shims+`:$PATH"`) {
		t.Fatalf("install --confine: exit %d\n%s%s", code, out, errOut)
	}

	// Its own home, seen at $HOME inside; the person's home out of sight.
	own := filepath.Join(d.Data, "agents", "claude", "home")
	if err := os.MkdirAll(own, 0o700); err != nil {
		t.Fatal(err)
	}
	for path, what := range map[string]string{filepath.Join(own, "own-home-mark"): "mine", filepath.Join(home, "real-home-canary"): "secret"} {
		if err := os.WriteFile(path, []byte(what), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	typed := func(path string, args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), shim, args...)
		cmd.Dir = d.Workspace
		cmd.Env = append(d.Env(), "PATH="+path)
		var o, e strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return o.String(), e.String(), code
	}

	out, errOut, code = typed(shims+":"+bin+":"+basePath, "hello", "two words")
	t.Logf("stdout:\n%s\nstderr:\n%s", out, errOut)
	if code != 0 {
		t.Fatalf("the launcher: exit %d", code)
	}
	for _, want := range []string{"runfile=yes", "home=" + home, "own-home-mark", "args=hello two words"} {
		if !strings.Contains(out, want) {
			t.Errorf("the confined agent did not say %q", want)
		}
	}
	if strings.Contains(out, "real-home-canary") {
		t.Error("the confined agent saw the person's home")
	}
	started := d.Events("kind=run.started")
	if len(started) != 1 || started[0]["payload"].(map[string]any)["agent"] != "claude" {
		t.Fatalf("run.started rows: %v", started)
	}

	// No real claude: the launcher must not find itself.
	_, errOut, code = typed(shims + ":/usr/bin:/bin")
	if code == 0 || !strings.Contains(errOut, "claude is not installed here") {
		t.Errorf("with no real claude: exit %d, stderr %q", code, errOut)
	}

	// Inside a confined run (a copy of the launcher, as its directory is
	// hidden there), the agent starts in that run.
	if b, err := os.ReadFile(shim); err != nil || os.WriteFile(filepath.Join(d.Workspace, "launcher-copy"), b, 0o755) != nil {
		t.Fatalf("copy the launcher: %v", err)
	}
	cmd := exec.CommandContext(t.Context(), d.Bin, "--data", d.Data, "run", "--", "sh", "-c", "./launcher-copy nested")
	cmd.Dir = d.Workspace
	cmd.Env = append(d.Env(), "PATH="+bin+":"+basePath)
	b, err := cmd.CombinedOutput()
	t.Logf("nested:\n%s", b)
	if err != nil || !strings.Contains(string(b), "runfile=yes") || !strings.Contains(string(b), "args=nested") {
		t.Errorf("the launcher inside a run: %v", err)
	}
	if n := len(d.Events("kind=run.started")); n != 2 {
		t.Errorf("%d runs started, want 2 (the launcher inside a run starts none)", n)
	}

	out, errOut, code = d.CLI(t.Context(), "install", "claude", "--uninstall")
	if code != 0 || !strings.Contains(out, "removed   "+shim) || !strings.Contains(out, "take the line that puts "+shims) {
		t.Fatalf("uninstall: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(shim); !os.IsNotExist(err) {
		t.Fatalf("the launcher survived --uninstall: %v", err)
	}
	if _, errOut, code = d.CLI(t.Context(), "install", "claude", "--uninstall", "--confine"); code == 0 || !strings.Contains(errOut, "no launcher for claude") {
		t.Errorf("uninstall --confine without a launcher: exit %d %q", code, errOut)
	}
}

// TestInstallConfineRefuses: --confine for an agent with no profile, or
// with --system, is refused in one sentence.
func TestInstallConfineRefuses(t *testing.T) {
	isolatedHome(t)
	d := clitest.Start(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"install", "cursor", "--confine"}, "has profiles for claude, codex, gemini only"},
		{[]string{"install", "claude", "--confine", "--system"}, "without --system"},
	}
	for _, c := range cases {
		if _, errOut, code := d.CLI(t.Context(), c.args...); code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", c.args, code, errOut, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(d.Data, "shims")); !os.IsNotExist(err) {
		t.Errorf("a refused install left launchers: %v", err)
	}
}
