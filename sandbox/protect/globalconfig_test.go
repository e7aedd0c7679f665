package protect

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestGlobalConfigIncludes: every file a global config may include, through
// ~/, a relative path or an includeIf of any condition, and what those
// include; each once, a loop ending; neither a missing file nor one git
// cannot parse.
func TestGlobalConfigIncludes(t *testing.T) {
	home := t.TempDir()
	files := map[string]string{
		".gitconfig":             "[include]\n\tpath = ~/.gitconfig.local\n[includeIf \"gitdir:~/work/\"]\n\tpath = .gitconfig-work\n",
		".gitconfig.local":       "[user]\n\tname = P\n[include]\n\tpath = ~/.gitconfig\n",
		".gitconfig-work":        "[include]\n\tpath = /etc/team.gitconfig\n",
		".config/git/config":     "[includeIf \"onbranch:main\"]\n\tpath = broken.inc\n",
		".config/git/broken.inc": "[user\n\tpath = ~/never\n",
	}
	for name, body := range files {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := ReadGlobalConfig([]string{filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config/git/config")}, home).Includes()
	want := []string{filepath.Join(home, ".gitconfig.local"), filepath.Join(home, ".gitconfig-work")}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestAbsoluteIncludes: include paths, files named under ~/ and
// gitdir:~/ conditions become absolute, and nothing else changes.
func TestAbsoluteIncludes(t *testing.T) {
	const home = "/home/p"
	in := "[core]\n\texcludesFile = ~/.gitignore_global\n\tattributesFile = /etc/attrs\n[user]\n\tname = P\n[include]\n\tpath = ~/.gitconfig.local\n[includeIf \"gitdir:~/work/\"]\n\tpath = sub/work.inc\n[includeIf \"onbranch:main\"]\n\tpath=/etc/x\n[include] path = ~/same-line\n"
	want := "[core]\n\texcludesFile = \"/home/p/.gitignore_global\"\n\tattributesFile = /etc/attrs\n[user]\n\tname = P\n[include]\n\tpath = \"/home/p/.gitconfig.local\"\n[includeIf \"gitdir:/home/p/work/\"]\n\tpath = \"/home/p/.config/git/sub/work.inc\"\n[includeIf \"onbranch:main\"]\n\tpath = \"/etc/x\"\n[include] path = ~/same-line\n"
	if got := string(AbsoluteIncludes([]byte(in), "/home/p/.config/git/config", home)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if bad := "[user\n"; string(AbsoluteIncludes([]byte(bad), "/x", home)) != bad {
		t.Error("a config git cannot parse changed")
	}
}

// TestGlobalConfigNamedFiles: the files a global config names for git to read
// (ignore rules, attributes, a commit template), each once.
func TestGlobalConfigNamedFiles(t *testing.T) {
	home := t.TempDir()
	a, b := filepath.Join(home, "a"), filepath.Join(home, "b")
	os.WriteFile(a, []byte("[core]\n\texcludesFile = ~/.gitignore_global\n\tattributesFile = relative\n[commit]\n\ttemplate = ~/.gitmessage\n"), 0o644)
	os.WriteFile(b, []byte("[core]\n\texcludesfile = ~/.gitignore_global\n"), 0o644)
	got := ReadGlobalConfig([]string{a, b}, home).NamedFiles()
	want := []string{filepath.Join(home, ".gitignore_global"), filepath.Join(home, ".gitmessage")}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestGlobalConfigBool: git's spellings of true and false, the last file's
// word winning.
func TestGlobalConfigBool(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	on, off, bare, empty := write("on", "[commit]\n\tgpgSign = Yes\n"), write("off", "[commit]\n\tgpgsign = off\n"), write("bare", "[commit]\n\tgpgsign\n"), write("empty", "[commit]\n\tgpgsign =\n")
	for _, tc := range []struct {
		files []string
		want  bool
	}{
		{[]string{on}, true}, {[]string{on, off}, false}, {[]string{off, on}, true},
		{[]string{bare}, true}, {[]string{on, empty}, false}, {nil, false},
	} {
		if got := ReadGlobalConfig(tc.files, dir).Bool("commit.gpgsign"); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.files, got, tc.want)
		}
	}
}
