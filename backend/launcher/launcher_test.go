package launcher

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeGatehouse is a stand-in for the gatehouse binary that prints the
// PATH it got, then its arguments in brackets.
func fakeGatehouse(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "gatehouse")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nprintf '%s\\n' \"$PATH\"\nprintf '[%s]' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestScriptStripsItsDirectory runs the launcher itself under /bin/sh:
// whatever PATH holds, its own directory is gone from the PATH Gatehouse
// gets, everything else stays in order, and the arguments pass as they are.
func TestScriptStripsItsDirectory(t *testing.T) {
	// A data dir with a space and a quote: the script's quoting holds.
	data := filepath.Join(t.TempDir(), "data dir's")
	bin := fakeGatehouse(t)
	if _, err := Write(bin, data, "claude"); err != nil {
		t.Fatal(err)
	}
	shims := Dir(data)
	cases := []struct {
		name, path, want string
	}{
		{"first", shims + ":/usr/bin:/bin", "/usr/bin:/bin"},
		{"absent", "/usr/bin:/bin", "/usr/bin:/bin"},
		{"twice, one with a slash", "/a:" + shims + "/:/b:" + shims, "/a:/b"},
		{"a longer name kept", shims + "2:/bin", shims + "2:/bin"},
		{"empty entries kept as the current directory", ":/a::/b:", ".:/a:.:/b:."},
		{"a star not expanded", "/x/*:" + shims, "/x/*"},
		{"only itself", shims, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command("/bin/sh", Path(data, "claude"), "--flag", "two words")
			cmd.Env = []string{"PATH=" + c.path}
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			path, args, _ := strings.Cut(string(out), "\n")
			if path != c.want {
				t.Errorf("PATH %q, want %q", path, c.want)
			}
			if want := "[--data][" + data + "][run][--launcher][claude][--flag][two words]"; args != want {
				t.Errorf("args %s, want %s", args, want)
			}
		})
	}
}

func TestScriptContent(t *testing.T) {
	s := string(Script("/opt/gh/gatehouse", "/home/u/.local/share/gatehouse", "codex"))
	for _, want := range []string{
		"#!/bin/sh\n" + Marker + " codex\n",
		"shims='/home/u/.local/share/gatehouse/shims'\n",
		"exec '/opt/gh/gatehouse' --data '/home/u/.local/share/gatehouse' run --launcher 'codex' \"$@\"\n",
		"gatehouse install codex --uninstall",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("launcher lacks %q:\n%s", want, s)
		}
	}
}

// TestLookPathPassesOverLaunchers: the real agent is found past the
// launchers' directory and past a launcher copied elsewhere; a PATH with
// launchers alone finds nothing, so a launcher cannot start itself.
func TestLookPathPassesOverLaunchers(t *testing.T) {
	data := t.TempDir()
	if _, err := Write("/opt/gh/gatehouse", data, "claude"); err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(t.TempDir(), "claude")
	b, _ := os.ReadFile(Path(data, "claude"))
	if err := os.WriteFile(copied, b, 0o755); err != nil {
		t.Fatal(err)
	}
	realDir := t.TempDir()
	agent := filepath.Join(realDir, "claude")
	if err := os.WriteFile(agent, []byte("#!/bin/sh\necho real\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The launchers' directory by another spelling: a link to it.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(Dir(data), link); err != nil {
		t.Fatal(err)
	}
	join := func(dirs ...string) string { return strings.Join(dirs, string(os.PathListSeparator)) }
	cases := []struct {
		name, path, want string
	}{
		{"launcher first", join(Dir(data), realDir), agent},
		{"through a link", join(link, realDir), agent},
		{"a copy elsewhere", join(filepath.Dir(copied), realDir), agent},
		{"real first", join(realDir, Dir(data)), agent},
		{"launchers only", join(Dir(data), link, filepath.Dir(copied)), ""},
		{"relative entries passed over", join("", ".", Dir(data)), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := LookPath("claude", c.path)
			if got != c.want {
				t.Fatalf("LookPath = %q, %v; want %q", got, err, c.want)
			}
			if c.want == "" && !errors.Is(err, ErrNotFound) {
				t.Fatalf("error %v, want ErrNotFound", err)
			}
		})
	}
	if got := First("claude", join(link, realDir)); got != link {
		t.Errorf("First = %q, want the launchers' link %q", got, link)
	}
}

// TestWriteAndRemove: writing again changes nothing; removing takes the
// launcher and its empty directory away; a file there that is not a
// launcher stays.
func TestWriteAndRemove(t *testing.T) {
	data := t.TempDir()
	steps := []struct {
		do   func() (Outcome, error)
		want Outcome
	}{
		{func() (Outcome, error) { return Write("/bin/gatehouse", data, "claude") }, Created},
		{func() (Outcome, error) { return Write("/bin/gatehouse", data, "claude") }, Unchanged},
		{func() (Outcome, error) { return Write("/usr/local/bin/gatehouse", data, "claude") }, Written},
		{func() (Outcome, error) { return Write("/bin/gatehouse", data, "gemini") }, Created},
		{func() (Outcome, error) { return Remove(data, "claude") }, Removed},
		{func() (Outcome, error) { return Remove(data, "claude") }, Unchanged},
	}
	for i, s := range steps {
		got, err := s.do()
		if err != nil || got != s.want {
			t.Fatalf("step %d: %q %v, want %q", i, got, err, s.want)
		}
	}
	if got := Installed(data); len(got) != 1 || got[0] != "gemini" {
		t.Fatalf("Installed = %v", got)
	}
	if fi, err := os.Stat(Path(data, "gemini")); err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Fatalf("the launcher is not executable: %v %v", fi, err)
	}
	if _, err := Remove(data, "gemini"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(Dir(data)); !os.IsNotExist(err) {
		t.Fatalf("the empty launchers' directory stayed: %v", err)
	}
	if err := os.MkdirAll(Dir(data), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(Path(data, "codex"), []byte("#!/bin/sh\necho mine\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Remove(data, "codex"); err == nil {
		t.Fatal("removed a file that is not a launcher")
	}
}
