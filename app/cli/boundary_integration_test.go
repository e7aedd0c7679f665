//go:build integration

package cli_test

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/config"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// TestBoundaryExplainsItself: a write outside the workspace (named whole,
// or relative to the command, as git names a worktree beside the
// project) and a read of a home file the sandbox hides reach the model
// with a Gatehouse sentence beside the bare errno, on both backends; and
// on Landlock a new file at the project's root or beside a secret, and a
// removal at the root, which it refuses (landlocknotes.go).
func TestBoundaryExplainsItself(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	// A file named as credentials: the sandbox hides it, and no card ever
	// proposes showing it (TestBoundaryProposesAndReruns has the card).
	dir := filepath.Join(home, ".gatehouse-test-boundary-"+filepath.Base(t.TempDir()))
	canary := filepath.Join(dir, "credentials")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(canary, []byte("CANARY-5521"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			d := clitest.StartBackend(t, backend)
			// A directory holding a secret, which Landlock hides by
			// letting it take nothing new.
			if err := os.MkdirAll(filepath.Join(d.Workspace, "cfg"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d.Workspace, "cfg", ".env"), []byte("API_KEY=abcdefghijklmnop1234\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d.Workspace, "old-at-root.txt"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			s := d.MCP(t.Context(), "boundary")
			// A write at / lands on no mount of the sandbox's: refused too,
			// not made in the sandbox's own root and lost with it.
			t.Cleanup(func() { os.Remove("/gatehouse-root-probe") })
			r := call(t, s, "run_command", map[string]any{"argv": []string{"sh", "-c", "touch /etc/gatehouse-probe; touch /gatehouse-root-probe; cat " + canary + "; echo x > new-at-root.txt; echo x > cfg/new.txt; rm old-at-root.txt"}})
			text := clitest.Text(t, r)
			if strings.Contains(text, "CANARY-5521") {
				t.Fatalf("the sandbox showed the home file: %s", text)
			}
			// bwrap mounts the system read-only and shows no home; Landlock
			// refuses both with EACCES.
			wants := map[string][]string{
				"bwrap": {"Gatehouse's sandbox kept /etc/gatehouse-probe read-only", "Gatehouse's sandbox kept /gatehouse-root-probe read-only", "Gatehouse's sandbox hides " + canary},
				// Landlock keeps the root's missing steering names from being
				// made by letting no command add anything there.
				"landlock": {"Gatehouse's sandbox refused /etc/gatehouse-probe", "Gatehouse's sandbox refused /gatehouse-root-probe", "Gatehouse's sandbox refused " + canary,
					"Gatehouse's Landlock sandbox refused making " + filepath.Join(d.Workspace, "new-at-root.txt"),
					"refused making " + filepath.Join(d.Workspace, "cfg", "new.txt") + ": " + filepath.Join(d.Workspace, "cfg") + " holds .env, a secret Gatehouse hides",
					"refused removing or renaming " + filepath.Join(d.Workspace, "old-at-root.txt")},
			}[backend]
			for _, want := range wants {
				if !strings.Contains(text, want) {
					t.Errorf("result lacks %q:\n%s", want, text)
				}
			}
			// A path relative to the command is named whole.
			r = call(t, s, "run_command", map[string]any{"argv": []string{"touch", strings.Repeat("../", 12) + "etc/gatehouse-rel-probe"}})
			if text := clitest.Text(t, r); !strings.Contains(text, "Gatehouse's sandbox") || !strings.Contains(text, " /etc/gatehouse-rel-probe") {
				t.Errorf("the refusal of a relative path has no note naming it:\n%s", text)
			}
		})
	}
}

// TestBoundaryProposesAndReruns: a command that fails on a home file the
// sandbox hides raises a card proposing exactly that file, read-only;
// allowed, the command runs again and reads it; a credential is never
// proposed.
func TestBoundaryProposesAndReruns(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(home, ".gatehouse-test-notes-"+filepath.Base(t.TempDir()))
	if err := os.WriteFile(notes, []byte("NOTES-8812\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(notes) })
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			d := clitest.StartBackend(t, backend)
			s := d.MCP(t.Context(), "propose")
			done := make(chan outcome, 1)
			go func() {
				done <- callAsync(t.Context(), s, "run_command", map[string]any{"argv": []string{"cat", notes}})
			}()
			card := d.WaitApproval(clitest.CardWait)
			if len(card.Paths) != 1 || card.Paths[0] != notes || !strings.Contains(card.Reason, "read-only") {
				t.Fatalf("card %+v, want one proposing %s read-only", card, notes)
			}
			d.Decide(card.ID, "allow", "once", "")
			o := <-done
			if o.err != nil || o.res.IsError || !strings.Contains(clitest.Text(t, o.res), "NOTES-8812") {
				t.Fatalf("after the proposal: %v %s", o.err, clitest.Text(t, o.res))
			}
			// Once: the next run does not see it, and asks again.
			go func() {
				done <- callAsync(t.Context(), s, "run_command", map[string]any{"argv": []string{"cat", notes}})
			}()
			card = d.WaitApproval(clitest.CardWait)
			d.Decide(card.ID, "deny", "once", "")
			if o := <-done; o.err != nil || !o.res.IsError || strings.Contains(clitest.Text(t, o.res), "NOTES-8812") {
				t.Fatalf("after a deny: %v %s", o.err, clitest.Text(t, o.res))
			}
			// Always: this and every later session's commands see it, and
			// the config keeps it for the next start.
			go func() {
				done <- callAsync(t.Context(), s, "run_command", map[string]any{"argv": []string{"cat", notes}})
			}()
			card = d.WaitApproval(clitest.CardWait)
			if !strings.Contains(card.AlwaysNote, "[sandbox] read_only") {
				t.Fatalf("the proposal offers no always: %+v", card)
			}
			d.Decide(card.ID, "allow", "always", "")
			if o := <-done; o.err != nil || o.res.IsError || !strings.Contains(clitest.Text(t, o.res), "NOTES-8812") {
				t.Fatalf("after always: %v %s", o.err, clitest.Text(t, o.res))
			}
			other := d.MCP(t.Context(), "propose-later")
			if res := call(t, other, "run_command", map[string]any{"argv": []string{"cat", notes}}); res.IsError || !strings.Contains(clitest.Text(t, res), "NOTES-8812") {
				t.Fatalf("another session after always: %s", clitest.Text(t, res))
			}
			cfg, err := config.Load(filepath.Join(clitest.ConfigDir(d.Workspace), "config.toml"), true)
			if err != nil || !slices.Contains(cfg.Sandbox.ReadOnly, notes) || cfg.Sandbox.Backend != backend {
				t.Fatalf("config after always: %v read_only %q backend %q", err, cfg.Sandbox.ReadOnly, cfg.Sandbox.Backend)
			}
		})
	}
}

// TestBoundaryNeverProposesAHomeSecret: a command that fails on a place
// of the home that holds credentials (cargo's registry token), which the
// sandbox hides, gets the sentence and no card proposing to show it: its
// "always" would have written a [sandbox] read_only line that the
// daemon's next start refuses.
func TestBoundaryNeverProposesAHomeSecret(t *testing.T) {
	home := t.TempDir()
	creds := filepath.Join(home, ".cargo", "credentials.toml")
	if err := os.MkdirAll(filepath.Dir(creds), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(creds, []byte("[registry]\ntoken = \"CANARY-7730\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			base := t.TempDir()
			ws := filepath.Join(base, "ws")
			clitest.WriteConfig(t, ws, "config.toml", "[sandbox]\nbackend = \""+backend+"\"\n")
			d := clitest.StartWithEnv(t, filepath.Join(base, "data"), ws, []string{"HOME=" + home})
			s := d.MCP(t.Context(), "secret")
			done := make(chan outcome, 1)
			go func() {
				done <- callAsync(t.Context(), s, "run_command", map[string]any{"argv": []string{"cat", creds}})
			}()
			o := answerWithoutCards(t, d, done)
			if o.err != nil || !o.res.IsError || strings.Contains(clitest.Text(t, o.res), "CANARY-7730") {
				t.Fatalf("the call: %v %s", o.err, clitest.Text(t, o.res))
			}
		})
	}
}

// TestBoundaryNeverProposesASocket: a command whose client fails on a
// service's unix socket the sandbox hides (a database's, as psql names
// it) gets a note that says the machine's sockets are out of reach and
// how the person can open the service's TCP port instead, and no card
// proposing to show the socket "read-only": a socket shown read-only
// still connects (the mount covers its bytes, not the service behind
// it), so the card would have handed the command the service.
func TestBoundaryNeverProposesASocket(t *testing.T) {
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			base := t.TempDir()
			// In the home, where the sandbox hides it and a card could offer
			// to show it (a database a version manager runs, say).
			home := filepath.Join(base, "home")
			sock := filepath.Join(home, ".local", "run", ".s.PGSQL.5432")
			if err := os.MkdirAll(filepath.Dir(sock), 0o755); err != nil {
				t.Fatal(err)
			}
			ln, err := net.Listen("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			var hits atomic.Int32
			go countAccepts(ln, &hits)
			ws := filepath.Join(base, "ws")
			clitest.WriteConfig(t, ws, "config.toml", "[sandbox]\nbackend = \""+backend+"\"\n")
			d := clitest.StartWithEnv(t, filepath.Join(base, "data"), ws, []string{"HOME=" + home})
			s := d.MCP(t.Context(), "socket")
			// A client that connects, and says it failed as psql does.
			client := `import os, socket, sys
try:
    socket.socket(socket.AF_UNIX).connect(sys.argv[1])
except OSError as e:
    sys.exit('psql: error: connection to server on socket "%s" failed: %s' % (sys.argv[1], os.strerror(e.errno)))
print("connected")`
			done := make(chan outcome, 1)
			go func() {
				done <- callAsync(t.Context(), s, "run_command", map[string]any{"argv": []string{"python3", "-c", client, sock}})
			}()
			o := answerWithoutCards(t, d, done)
			out := clitest.Text(t, o.res)
			if o.err != nil || !o.res.IsError || !strings.Contains(out, "shows commands none of this machine's unix sockets") || !strings.Contains(out, "host_ports") {
				t.Fatalf("the call: %v %s", o.err, out)
			}
			if n := hits.Load(); n != 0 {
				t.Errorf("the socket took %d connections", n)
			}
		})
	}
}

// answerWithoutCards waits for the call's answer on done, failing the
// test if a card comes first (denied, so the call can end).
func answerWithoutCards(t *testing.T, d *clitest.Daemon, done <-chan outcome) outcome {
	t.Helper()
	var o outcome
	clitest.WaitFor(t, 60*time.Second, "the call's answer", func() bool {
		if p := d.Pending(); len(p) > 0 {
			d.Decide(p[0].ID, "deny", "once", "")
			t.Fatalf("a card proposed showing %v: %s", p[0].Paths, p[0].Reason)
		}
		select {
		case o = <-done:
			return true
		default:
			return false
		}
	})
	return o
}
