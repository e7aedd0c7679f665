//go:build integration

package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunNestedNamespaceKeepsProtections: a command under `gatehouse run`
// that makes a user and mount namespace of its own (`unshare -rm`, as an
// agent's own sandbox does) holds every capability there, and still
// cannot unmount or remount what keeps the project's steering files
// read-only, nor write them: the kernel locks mounts that reach a less
// privileged namespace. On every backend (Landlock's and the container's
// may refuse the namespace itself, which protects as well; the log says
// which happened).
func TestRunNestedNamespaceKeepsProtections(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Fatalf("unshare (util-linux) is needed: %v", err)
	}
	for _, backend := range runBackends {
		t.Run(backend, func(t *testing.T) { runNestedNamespaceKeepsProtections(t, backend) })
	}
}

func runNestedNamespaceKeepsProtections(t *testing.T, backend string) {
	d := startRunDaemon(t, backend, "")
	if out, err := exec.Command("git", "init", "-q", d.Workspace).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	if err := os.Mkdir(filepath.Join(d.Workspace, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	protected := map[string]string{".git/config": "", "CLAUDE.md": "the person's instructions\n"}
	for p, body := range protected {
		f := filepath.Join(d.Workspace, p)
		if body == "" {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			protected[p] = string(b)
			continue
		}
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The nested shell first shows it holds what mounting takes.
	inner := `mount -t tmpfs scratch /tmp && echo HOLDS-MOUNT
for f in .git/config CLAUDE.md; do
  umount -l "$f" 2>/dev/null && echo "UNMOUNTED $f"
  mount -o remount,bind,rw "$f" 2>/dev/null && echo "REMOUNTED $f"
  echo '[core] fsmonitor = evil' >> "$f" 2>/dev/null && echo "WROTE $f"
done
echo NESTED-RAN`
	script := `cd "$1" && test -f .git/config && test -f CLAUDE.md || exit 9
unshare -rm sh -c "$0" || echo NO-NESTED-NAMESPACE; echo made > src/inside.txt`
	out, errOut, code := runIn(t.Context(), t, d, "--", "sh", "-c", script, inner, d.Workspace)
	t.Logf("stdout:\n%s\nstderr:\n%s", out, errOut)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, bad := range []string{"UNMOUNTED", "REMOUNTED", "WROTE"} {
		if strings.Contains(out, bad) {
			t.Errorf("in a namespace of its own the command could do %s", bad)
		}
	}
	switch {
	case strings.Contains(out, "NESTED-RAN") && !strings.Contains(out, "HOLDS-MOUNT"):
		t.Errorf("the nested namespace could not mount at all, so its refusals show nothing:\n%s", out)
	case !strings.Contains(out, "NESTED-RAN") && !strings.Contains(out, "NO-NESTED-NAMESPACE"):
		t.Errorf("the nested namespace neither ran nor was refused:\n%s", out)
	}
	for p, want := range protected {
		if b, _ := os.ReadFile(filepath.Join(d.Workspace, p)); string(b) != want {
			t.Errorf("%s is now %q, want %q", p, b, want)
		}
	}
	// Below the root: on Landlock a directory missing a protected name
	// (the root) takes no new entries.
	if b, _ := os.ReadFile(filepath.Join(d.Workspace, "src", "inside.txt")); string(b) != "made\n" {
		t.Errorf("an ordinary write in the project did not land: %q", b)
	}
}
