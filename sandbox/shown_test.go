package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGlobalGitConfig: the person's two global git configs become one
// file, in git's order and without their credentials, shared while they
// stay the same; none when there is neither. A file they include from
// the home comes as a copy without its credentials, named by its
// absolute path.
func TestGlobalGitConfig(t *testing.T) {
	home, dir := t.TempDir(), filepath.Join(t.TempDir(), "shown")
	if p, _, err := GlobalGitConfig(home, dir); p != "" || err != nil {
		t.Fatalf("no config: %q, %v", p, err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("the directory was made with nothing to show")
	}
	const token = "ghp_Zx8Kq2Lm4Np6Rt8Vw0Yb3Cd5Ef7Gh9Jk1Mn3P"
	if err := os.MkdirAll(filepath.Join(home, ".config", "git"), 0o700); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		".config/git/config": "[user]\n\tname = From XDG\n",
		".gitconfig":         "[user]\n\tname = From Home\n[url \"https://" + token + "@forge.example.test/\"]\n\tinsteadOf = https://forge.example.test/\n[include]\n\tpath = ~/.gitconfig.local\n",
		".gitconfig.local":   "[user]\n\temail = p@example.test\n\tpassword = " + token + "\n",
	} {
		if err := os.WriteFile(filepath.Join(home, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p, includes, err := GlobalGitConfig(home, dir)
	if err != nil || p == "" {
		t.Fatalf("%q, %v", p, err)
	}
	local := filepath.Join(home, ".gitconfig.local")
	if b, err := os.ReadFile(includes[local]); err != nil || strings.Contains(string(b), token) || !strings.Contains(string(b), "p@example.test") || len(includes) != 1 {
		t.Errorf("includes %v: %s (%v)", includes, b, err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	if strings.Contains(got, token) {
		t.Errorf("the copy holds the token:\n%s", got)
	}
	if x, h := strings.Index(got, "From XDG"), strings.Index(got, "From Home"); x < 0 || h < x {
		t.Errorf("want ~/.config/git/config, then ~/.gitconfig (which wins):\n%s", got)
	}
	if !strings.Contains(got, `path = "`+local+`"`) {
		t.Errorf("the include does not name %s:\n%s", local, got)
	}
	if st, err := os.Stat(p); err != nil || st.Mode().Perm()&0o222 != 0 {
		t.Errorf("the copy is writable: %v %v", st.Mode(), err)
	}
	if again, _, err := GlobalGitConfig(home, dir); again != p || err != nil {
		t.Errorf("the same config made %q (%v), not %q", again, err, p)
	}
}

// BenchmarkHomeGitView is what each bwrap command's layout reads of the
// person's git: a home with a config that includes two files and names
// an ignore file and a hooks directory.
func BenchmarkHomeGitView(b *testing.B) {
	home, dir := b.TempDir(), b.TempDir()
	for _, d := range []string{".config/git", ".githooks"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			b.Fatal(err)
		}
	}
	for name, body := range map[string]string{
		".gitconfig":         "[core]\n\texcludesFile = ~/.gitignore_global\n\thooksPath = ~/.githooks\n[user]\n\tname = P\n[include]\n\tpath = ~/.gitconfig.local\n[includeIf \"gitdir:~/work/\"]\n\tpath = ~/.gitconfig-work\n",
		".gitconfig.local":   "[user]\n\temail = p@example.test\n",
		".gitconfig-work":    "[user]\n\temail = w@example.test\n",
		".gitignore_global":  "*.swp\n",
		".config/git/ignore": "*.o\n",
	} {
		if err := os.WriteFile(filepath.Join(home, name), []byte(body), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, _, err := HomeGitView(home, dir); err != nil {
			b.Fatal(err)
		}
	}
}
