//go:build integration

package cli_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// allowShellPolicy lets the scenarios run `sh -c` without an approval each:
// a user rule that names the interpreter.
const allowShellPolicy = `[[rule]]
id = "test-allow-sh"
action = "allow"
tool = "run_command"
binary = "/usr/bin/sh"
reason = "rollback scenarios"

[[effect]]
id = "test-allow-effects"
action = "allow"
paths = ["**"]
reason = "rollback scenarios delete files on purpose"
`

// startRollbackDaemon makes a workspace holding a git repository with two
// commits, 500 source files, a binary and an executable script.
func startRollbackDaemon(t *testing.T) *clitest.Daemon {
	t.Helper()
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	clitest.WriteConfig(t, ws, "policy.toml", allowShellPolicy)
	os.MkdirAll(filepath.Join(ws, "src"), 0o755)
	for i := 0; i < 500; i++ {
		os.WriteFile(filepath.Join(ws, "src", fmt.Sprintf("f%03d.go", i)), []byte(fmt.Sprintf("package src\n\n// File %d says hello.\nconst V%d = \"hello\"\n", i, i)), 0o644)
	}
	bin := make([]byte, 64<<10)
	for i := range bin {
		bin[i] = byte(i * 7)
	}
	os.WriteFile(filepath.Join(ws, "blob.bin"), bin, 0o644)
	os.WriteFile(filepath.Join(ws, "run.sh"), []byte("#!/bin/sh\necho run\n"), 0o755)
	git := func(args ...string) {
		gitWith(t, ws, append(os.Environ(), "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z"), args...)
	}
	git("init", "-q", "-b", "main")
	git("config", "user.email", "test@example.com")
	git("config", "user.name", "Test")
	git("config", "gc.auto", "0")
	git("config", "maintenance.auto", "false")
	git("add", "-A")
	git("commit", "-q", "-m", "first")
	os.WriteFile(filepath.Join(ws, "NOTES.md"), []byte("second commit\n"), 0o644)
	git("add", "-A")
	git("commit", "-q", "-m", "second")
	return clitest.StartWith(t, filepath.Join(base, "data"), ws)
}

// tree fingerprints every path under root: type, permission bits, and
// content (or link target).
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		info, _ := os.Lstat(p)
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link:" + target
		case info.IsDir():
			out[rel] = fmt.Sprintf("dir:%o", info.Mode().Perm())
		default:
			b, _ := os.ReadFile(p)
			sum := sha256.Sum256(b)
			out[rel] = fmt.Sprintf("file:%o:%s", info.Mode().Perm(), hex.EncodeToString(sum[:8]))
		}
		return nil
	})
	return out
}

func diffTrees(want, got map[string]string) string {
	var lines []string
	for k, v := range want {
		if got[k] != v {
			lines = append(lines, fmt.Sprintf("%s: want %s, got %q", k, v, got[k]))
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			lines = append(lines, fmt.Sprintf("%s: unexpected %s", k, v))
		}
	}
	sort.Strings(lines)
	if len(lines) > 20 {
		lines = append(lines[:20], fmt.Sprintf("… and %d more", len(lines)-20))
	}
	return strings.Join(lines, "\n")
}

func activeSession(t *testing.T, d *clitest.Daemon) string {
	t.Helper()
	out, _, code := d.CLI(t.Context(), "sessions", "--status", "active", "--json")
	var list []struct {
		ID string `json:"id"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 {
		t.Fatalf("active sessions: %s", out)
	}
	return list[0].ID
}

// callApproving makes a call and allows whatever approval it raises (some
// scenarios touch paths outside the workspace, which asks).
func callApproving(t *testing.T, d *clitest.Daemon, s *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	done := make(chan outcome, 1)
	go func() { done <- callAsync(t.Context(), s, tool, args) }()
	for {
		select {
		case o := <-done:
			if o.err != nil {
				t.Fatalf("%s: %v", tool, o.err)
			}
			return o.res
		case <-time.After(50 * time.Millisecond):
			for _, a := range d.Pending() {
				d.Decide(a.ID, "allow", "once", "")
			}
		}
	}
}

func TestRollbackScenarios(t *testing.T) {
	scenarios := []struct {
		name   string
		script string
	}{
		{"rm -rf src", "rm -rf src"},
		{"git reset --hard HEAD~1", "git reset -q --hard HEAD~1"},
		{"git commit --amend", "echo amended >> NOTES.md && git commit -q -a --amend -m rewritten"},
		{"sed -i over 500 files", "sed -i 's/hello/goodbye/' src/*.go"},
		{"rename storm", "cd src && for f in *.go; do mv \"$f\" \"renamed_$f\"; done"},
		{"file replaced by a symlink to /etc/passwd", "rm NOTES.md && ln -s /etc/passwd NOTES.md"},
		{"binary file rewrite", "head -c 70000 /dev/urandom > blob.bin"},
		{"new empty directory", "mkdir -p empty/nested"},
		{"chmod -x", "chmod -x run.sh"},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			d := startRollbackDaemon(t)
			before := tree(t, d.Workspace)
			s := d.MCP(t.Context(), "rollback")
			r := callApproving(t, d, s, "run_command", map[string]any{"argv": []string{"sh", "-c", sc.script}})
			if r.IsError {
				t.Fatalf("scenario command failed: %s", clitest.Text(t, r))
			}
			if diffTrees(before, tree(t, d.Workspace)) == "" {
				t.Fatal("the scenario changed nothing")
			}
			sess := activeSession(t, d)
			if out, errOut, code := d.CLI(t.Context(), "rollback", sess, "--dry-run"); code != 0 || !strings.Contains(out, "Dry run") {
				t.Fatalf("dry run: %s %s", out, errOut)
			}
			if out, errOut, code := d.CLI(t.Context(), "rollback", sess); code != 0 || !strings.Contains(out, "Rolled back") {
				t.Fatalf("rollback: %s %s", out, errOut)
			}
			after := tree(t, d.Workspace)
			for k := range after {
				if _, ok := before[k]; !ok && strings.HasPrefix(k, ".git/objects/") {
					delete(after, k) // a rollback keeps the objects git wrote since
				}
			}
			if diff := diffTrees(before, after); diff != "" {
				t.Fatalf("workspace differs from the pre-call tree after rollback:\n%s", diff)
			}
			if out, err := exec.Command("git", "-C", d.Workspace, "fsck", "--no-progress").CombinedOutput(); err != nil {
				t.Fatalf("git fsck after rollback: %v %s", err, out)
			}
		})
	}
}

// TestRollbackKeepsPersonsEdit: a file the person edited after the agent's
// call is listed and kept by default, overwritten only with --force.
func TestRollbackKeepsPersonsEdit(t *testing.T) {
	d := startRollbackDaemon(t)
	s := d.MCP(t.Context(), "person-edit")
	notes := filepath.Join(d.Workspace, "NOTES.md")
	call(t, s, "run_command", map[string]any{"argv": []string{"sh", "-c", "echo agent > NOTES.md && echo agent > src/f000.go"}})
	os.WriteFile(notes, []byte("the person's own words\n"), 0o644)
	sess := activeSession(t, d)
	out, _, code := d.CLI(t.Context(), "rollback", sess)
	if code != 0 || !strings.Contains(out, "edited outside Gatehouse") || !strings.Contains(out, "NOTES.md") {
		t.Fatalf("rollback output: %s", out)
	}
	if b, _ := os.ReadFile(notes); string(b) != "the person's own words\n" {
		t.Fatalf("the person's edit was overwritten: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(d.Workspace, "src", "f000.go")); !bytes.Contains(b, []byte("hello")) {
		t.Fatalf("agent change not rolled back: %q", b)
	}
}

// TestRollbackIsUndoable and TestRollbackBadInput cover the API's edges.
func TestRollbackBadInput(t *testing.T) {
	d := startRollbackDaemon(t)
	s := d.MCP(t.Context(), "edges")
	call(t, s, "run_command", map[string]any{"argv": []string{"sh", "-c", "echo x > NOTES.md"}})
	sess := activeSession(t, d)
	s2 := d.MCP(t.Context(), "other")
	call(t, s2, "run_command", map[string]any{"argv": []string{"sh", "-c", "echo y > other.txt"}})
	out, _, _ := d.CLI(t.Context(), "checkpoints", sess, "--json")
	var cps []struct {
		ID string `json:"id"`
	}
	json.Unmarshal([]byte(out), &cps)
	if len(cps) < 2 {
		t.Fatalf("checkpoints: %s", out)
	}
	// A checkpoint id from another session is refused with a clear error.
	sessions, _, _ := d.CLI(t.Context(), "sessions", "--status", "active", "--json")
	var list []struct {
		ID string `json:"id"`
	}
	json.Unmarshal([]byte(sessions), &list)
	var other string
	for _, l := range list {
		if l.ID != sess {
			other = l.ID
		}
	}
	_, errOut, code := d.CLI(t.Context(), "rollback", other, "--to", cps[0].ID)
	if code == 0 || !strings.Contains(errOut, "session") {
		t.Fatalf("cross-session rollback: %d %s", code, errOut)
	}
	for _, args := range [][]string{
		{"rollback", sess, "--to", "cp_nope"},
		{"rollback", "s_nope"},
		{"rollback", sess, "--to", cps[0].ID, "--call", "c_1"},
	} {
		if _, errOut, code := d.CLI(t.Context(), args...); code == 0 || errOut == "" {
			t.Fatalf("%v: want a clear error, got %d %q", args, code, errOut)
		}
	}
	// A rollback is itself undoable.
	before := tree(t, d.Workspace)
	out, _, code = d.CLI(t.Context(), "rollback", sess)
	if code != 0 {
		t.Fatalf("rollback: %s", out)
	}
	i := strings.Index(out, "--call ")
	if i < 0 {
		t.Fatalf("no undo hint: %s", out)
	}
	undo := strings.Fields(out[i+len("--call "):])[0]
	if out, errOut, code := d.CLI(t.Context(), "rollback", sess, "--call", undo); code != 0 {
		t.Fatalf("undo rollback: %s %s", out, errOut)
	}
	if diff := diffTrees(before, tree(t, d.Workspace)); diff != "" {
		t.Fatalf("undoing the rollback did not restore:\n%s", diff)
	}
	if len(d.Events("kind=rollback.applied")) != 2 {
		t.Fatal("rollbacks not audited")
	}
}

// TestRollbackSurvivesSIGKILL kills the daemon in the middle of a large
// rollback; after a restart the workspace is exactly the target state.
func TestRollbackSurvivesSIGKILL(t *testing.T) {
	d := startRollbackDaemon(t)
	s := d.MCP(t.Context(), "sigkill")
	// Make a lot of work for the rollback: 3,000 files of 64 KiB.
	call(t, s, "run_command", map[string]any{"argv": []string{"sh", "-c", "mkdir big && i=0; while [ $i -lt 3000 ]; do head -c 65536 /dev/zero > big/f$i; i=$((i+1)); done"}})
	sess := activeSession(t, d)
	target := tree(t, d.Workspace)
	call(t, s, "run_command", map[string]any{"argv": []string{"sh", "-c", "rm -rf big src"}})
	deleted := tree(t, d.Workspace)
	out, _, _ := d.CLI(t.Context(), "checkpoints", sess, "--json")
	var cps []struct {
		ID     string `json:"id"`
		CallID string `json:"call_id"`
		Phase  string `json:"phase"`
	}
	json.Unmarshal([]byte(out), &cps)
	var to string
	for _, c := range cps {
		if c.Phase == "pre" {
			to = c.ID // the last pre checkpoint: before rm -rf
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	rb := exec.CommandContext(ctx, d.Bin, "--data", d.Data, "rollback", sess, "--to", to)
	rb.Env = d.Env()
	if err := rb.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill once the rollback has started writing files (its progress log
	// exists): from then on the only acceptable outcome is the target.
	// Polled every millisecond: the kill must land while it still writes.
	journal := filepath.Join(d.Data, "snapshots", "journal")
	if !waitfor.Until(60*time.Second, time.Millisecond, func() bool {
		m, _ := filepath.Glob(filepath.Join(journal, "*.progress"))
		return len(m) > 0
	}) {
		t.Fatal("the rollback never journaled")
	}
	d.Kill()
	if err := rb.Wait(); err == nil {
		t.Log("note: the rollback finished before the kill landed")
	} else {
		t.Log("the daemon died mid-rollback; the CLI saw:", err)
	}
	d.Restart()
	got := tree(t, d.Workspace)
	if diffTrees(deleted, got) == "" {
		t.Fatal("the rollback was killed after it started writing, yet the restart reverted it instead of finishing")
	}
	if diff := diffTrees(target, got); diff != "" {
		ents, _ := os.ReadDir(journal)
		t.Fatalf("after SIGKILL mid-rollback and restart, the workspace is not the target (journal now %v):\n%s\n%s", ents, diff, d.Log())
	}
	if out, _, code := d.CLI(t.Context(), "audit", "verify"); code != 0 {
		t.Fatalf("audit verify: %s", out)
	}
}
