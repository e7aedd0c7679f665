//go:build integration

package bwrap

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// The default profile must not break normal development: git status and
// commit in a repo inside the workspace, go build, npm --version.
func TestDevToolsWorkInDefaultProfile(t *testing.T) {
	for _, tool := range []string{"git", "go", "npm"} {
		if _, err := exec.LookPath(tool); err != nil && tool != "go" {
			t.Fatalf("%s is required for this test: %v", tool, err)
		}
	}
	ctx := t.Context()
	b, err := New(ctx, Options{})
	if err != nil {
		t.Fatalf("bwrap backend unavailable: %v", err)
	}
	ws := t.TempDir()
	repo := filepath.Join(ws, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	for name, body := range map[string]string{
		"go.mod":  "module example.com/hello\n\ngo 1.21\n",
		"main.go": "package main\n\nfunc main() { println(\"hi\") }\n",
	} {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := b.Open(ctx, sandbox.SessionSpec{ID: "dev", Workspaces: []string{ws}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	goBin := "go"
	if _, err := exec.LookPath("go"); err != nil {
		goBin = "/usr/local/go/bin/go"
	}
	env := []string{
		"PATH=/usr/local/go/bin:/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8",
		"GIT_AUTHOR_NAME=Agent", "GIT_AUTHOR_EMAIL=agent@example.com",
		"GIT_COMMITTER_NAME=Agent", "GIT_COMMITTER_EMAIL=agent@example.com",
		"GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOPROXY=off",
	}
	lim := sandbox.DefaultLimits()
	lim.Wall = 5 * time.Minute
	steps := []struct {
		argv []string
		want string
	}{
		{[]string{"git", "status", "--short"}, "main.go"},
		{[]string{"git", "add", "-A"}, ""},
		{[]string{"git", "commit", "-q", "-m", "first"}, ""},
		{[]string{"git", "log", "--oneline"}, "first"},
		{[]string{goBin, "build", "-o", "hello", "."}, ""},
		{[]string{"./hello"}, "hi"},
		{[]string{"npm", "--version"}, "."},
	}
	for _, st := range steps {
		r, err := s.Run(ctx, sandbox.Spec{Argv: st.argv, Dir: "repo", Env: env, Limits: lim})
		out := string(r.Stdout) + string(r.Stderr)
		if err != nil || r.ExitCode != 0 {
			t.Fatalf("%v: exit %d err %v\n%s", st.argv, r.ExitCode, err, out)
		}
		if !strings.Contains(out, st.want) {
			t.Errorf("%v: output lacks %q:\n%s", st.argv, st.want, out)
		}
	}
	if out, err := exec.Command("git", "-C", repo, "log", "--oneline").CombinedOutput(); err != nil || !strings.Contains(string(out), "first") {
		t.Errorf("commit not visible on the host: %v %s", err, out)
	}
}
