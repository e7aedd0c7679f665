package protect

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// SecretPathspecs match, in git, every secret path IsSecret accepts, at
// the root and below, whatever its case.
func TestSecretPathspecsMatchTheList(t *testing.T) {
	ws := t.TempDir()
	files := []string{".env", "app/.env.local", "deploy/id_rsa", "certs/Server.PEM", ".aws/credentials", "k8s/.kube/config",
		".npmrc", "src/main.go", ".env.example", "deploy/id_rsa.pub", ".env~", "app/.env-old", ".envrc"}
	for _, f := range files {
		p := filepath.Join(ws, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}} {
		c := exec.Command("git", args...)
		c.Dir = ws
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	c := exec.Command("git", append([]string{"ls-files", "-z", "--"}, SecretPathspecs()...)...)
	c.Dir = ws
	out, err := c.Output()
	if err != nil {
		t.Fatal(err)
	}
	listed := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	for _, f := range files {
		if IsSecret(f) && !slices.Contains(listed, f) {
			t.Errorf("secret %s not matched by the pathspecs (listed %q)", f, listed)
		}
	}
	if slices.Contains(listed, "src/main.go") {
		t.Errorf("the pathspecs match src/main.go")
	}
}
