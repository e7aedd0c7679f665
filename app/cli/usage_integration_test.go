//go:build integration

package cli_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// Bad flags and missing arguments are refused with exit 1 and one sentence
// that names the valid choices or the missing argument.
func TestUsageErrorsNameTheFix(t *testing.T) {
	d := clitest.Start(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--log-level", "loud", "sessions"}, `--log-level must be one of debug, info, warn, error, not "loud"`},
		{[]string{"log", "--kind", "bogus"}, `"bogus" is not an event kind; give a family (agent, approval, cache, checkpoint,`},
		{[]string{"audit", "export", "--kind", "bogus"}, `"bogus" is not an event kind`},
		{[]string{"sessions", "--status", "gone"}, `--status must be one of active, ended, killed, not "gone"`},
		{[]string{"doctor", "--backend", "chroot"}, `--backend must be one of auto, bwrap, landlock, seatbelt, container, none, not "chroot"`},
		{[]string{"log", "-n", "0"}, "-n 0 shows no past events; add -f to follow new ones"},
		{[]string{"log", "-n", "5000"}, "-n must be a number of events from 0 to 1000"},
		{[]string{"rollback"}, "rollback needs a SESSION; see gatehouse sessions"},
		{[]string{"rollback", "--dry-run"}, "rollback needs a SESSION; see gatehouse sessions"},
		{[]string{"checkpoints"}, "checkpoints needs a SESSION; see gatehouse sessions"},
		{[]string{"approve"}, "approve needs an approval ID; see gatehouse approvals"},
		{[]string{"deny"}, "deny needs an approval ID; see gatehouse approvals"},
		{[]string{"rollback", "s_1", "s_2"}, "rollback takes one SESSION, not 2 arguments"},
		{[]string{"sessions", "s_1", "s_2"}, "sessions takes one ID, not 2 arguments"},
	}
	for _, tt := range tests {
		out, stderr, code := d.CLI(t.Context(), tt.args...)
		if code != 1 || !strings.Contains(stderr, tt.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 1 and one line saying %q", tt.args, code, stderr, out, tt.want)
		}
	}
}

// `log -f -n 0` prints what happens from now on and none of the history.
func TestLogFollowWithoutHistory(t *testing.T) {
	d := clitest.Start(t)
	d.CLI(t.Context(), "pause", "--reason", "before")
	d.CLI(t.Context(), "resume")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.Bin, "--data", d.Data, "log", "-f", "-n", "0")
	cmd.Env = d.Env()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	// The stream is open once a new event reaches it; keep making one.
	var got []string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		d.CLI(t.Context(), "pause", "--reason", "after")
		d.CLI(t.Context(), "resume")
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("log -f ended: %v", got)
			}
			got = append(got, l)
		case <-time.After(200 * time.Millisecond):
			continue
		}
		break
	}
	if len(got) == 0 {
		t.Fatal("log -f -n 0 printed no new event")
	}
	for _, l := range got {
		if strings.Contains(l, "system.start") || strings.Contains(l, "before") {
			t.Fatalf("log -f -n 0 printed history: %q", l)
		}
	}
	if !strings.Contains(got[0], "system.pause") && !strings.Contains(got[0], "system.resume") {
		t.Fatalf("first followed line is not a new switch event: %q", got[0])
	}
}

// A config error names the key and what it takes, without Go type names,
// and the daemon does not start.
func TestConfigErrorOneSentence(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, []byte("listen = \"127.0.0.1:0\"\napproval_timeout_s = \"120\"\n"), 0o600)
	ws := filepath.Join(dir, "ws")
	os.Mkdir(ws, 0o755)
	_, stderr, code := clitest.Run(t.Context(), t, clitest.Binary(t), append(os.Environ(), "XDG_CONFIG_HOME="+dir),
		"--config", cfg, "serve", "--data", filepath.Join(dir, "data"), "--workspace", ws)
	want := cfg + " line 2: approval_timeout_s must be a number of seconds"
	if code != 1 || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, stderr %q; want %q", code, stderr, want)
	}
	for _, goWord := range []string{"int", "config.Config", "struct field", "toml:"} {
		if strings.Contains(stderr, goWord) {
			t.Fatalf("the error shows Go detail %q: %s", goWord, stderr)
		}
	}
}
