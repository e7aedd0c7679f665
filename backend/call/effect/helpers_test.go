package effect

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const gitIdentity = "export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@example.test GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@example.test; "

// hostSh runs script with sh in dir, on the host, as a git user of its own
// (gitIdentity, and no system or global git config).
func hostSh(t *testing.T, dir, script string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", gitIdentity+script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
}

// newRepo is a workspace holding a new repository on main, its history
// made by script.
func newRepo(t *testing.T, script string) string {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "ws")
	os.MkdirAll(ws, 0o755)
	hostSh(t, ws, "git init -q -b main && "+script)
	return ws
}

// gitRepo is a repository whose one file, f.txt, is committed commits
// times, different each time.
func gitRepo(t *testing.T, commits int) string {
	t.Helper()
	script := "true"
	for i := 1; i <= commits; i++ {
		script += fmt.Sprintf(" && printf %s > f.txt && git add f.txt && git commit -qm c", strings.Repeat("x", i))
	}
	return newRepo(t, script)
}

// smallRepo is a repository with files tracked files (f1.txt…), each in a
// commit of its own, on main.
func smallRepo(t *testing.T, files int) string {
	t.Helper()
	script := "true"
	for i := 1; i <= files; i++ {
		script += fmt.Sprintf(" && echo file %d > f%d.txt && git add f%d.txt && git commit -qm c%d", i, i, i, i)
	}
	return newRepo(t, script)
}
