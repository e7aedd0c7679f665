package protect

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitConfigCases are config files with what git makes of them: the
// assignments as `git config --list` prints them (name=value, a bare
// key as the name alone), or an error.
var gitConfigCases = []struct {
	name, src string
	want      []string // nil with bad set: git refuses the file
	bad       bool
}{
	{"plain", "[core]\n\thooksPath = .husky\n", []string{"core.hookspath=.husky"}, false},
	{"case folded section and key", "[Core]\nHooksPath=x\n", []string{"core.hookspath=x"}, false},
	{"subsection keeps case and escapes", "[includeIf \"gitdir:~/Work/\\\"q\\\\\"]\npath = a\n", []string{"includeif.gitdir:~/Work/\"q\\.path=a"}, false},
	{"old dotted subsection is folded", "[Branch.Main]\nremote = o\n", []string{"branch.main.remote=o"}, false},
	{"key on the header line", "[core] hooksPath = h\n", []string{"core.hookspath=h"}, false},
	{"bare key", "[core]\n\tbare\n", []string{"core.bare"}, false},
	{"comments", "# c\n; c\n[core] ; c\n\thooksPath = a # trailing\n\tworktree = b;c\n", []string{"core.hookspath=a", "core.worktree=b"}, false},
	{"quotes keep comment chars and spaces", "[core]\nhooksPath = \" a # b ; c \"\n", []string{"core.hookspath= a # b ; c "}, false},
	{"inner whitespace is one space per byte", "[core]\nhooksPath = a \t b   \n", []string{"core.hookspath=a   b"}, false},
	{"escapes", "[core]\nhooksPath = a\\tb\\\\c\\\"d\n", []string{"core.hookspath=a\tb\\c\"d"}, false},
	{"continuation", "[core]\nhooksPath = ab\\\ncd\nworktree = w\n", []string{"core.hookspath=abcd", "core.worktree=w"}, false},
	{"continuation inside quotes", "[core]\nhooksPath = \"a \\\n b\"\n", []string{"core.hookspath=a  b"}, false},
	{"crlf", "[core]\r\nhooksPath = x\r\n", []string{"core.hookspath=x"}, false},
	{"bom", "\xef\xbb\xbf[core]\nhooksPath = x\n", []string{"core.hookspath=x"}, false},
	{"no newline at the end", "[core]\nhooksPath = x", []string{"core.hookspath=x"}, false},
	{"empty value", "[core]\nhooksPath =\n", []string{"core.hookspath="}, false},
	{"several sections", "[include]\npath = a\n[core]\nhooksPath = b\n[include]\npath = c\n", []string{"include.path=a", "core.hookspath=b", "include.path=c"}, false},
	{"dash and digits in names", "[my-sec2]\nkey-1 = v\n", []string{"my-sec2.key-1=v"}, false},
	{"key before any section", "k = v\n", []string{"k=v"}, false},

	{"unknown escape", "[core]\nhooksPath = a\\qb\n", nil, true},
	{"unterminated quote", "[core]\nhooksPath = \"abc\n", nil, true},
	{"unterminated header", "[core\nhooksPath = a\n", nil, true},
	{"space before ] after subsection", "[a \"b\" ]\nk = v\n", nil, true},
	{"unquoted subsection", "[a b]\nk = v\n", nil, true},
	{"bad section char", "[co_re]\nk = v\n", nil, true},
	{"key not starting with a letter", "[core]\n1k = v\n", nil, true},
	{"comment right after a bare key", "[core]\nbare # x\n", nil, true},
	{"subsection with newline", "[a \"b\nc\"]\nk = v\n", nil, true},
}

func TestParseGitConfig(t *testing.T) {
	for _, tc := range gitConfigCases {
		t.Run(tc.name, func(t *testing.T) {
			vars, err := parseGitConfig([]byte(tc.src))
			if tc.bad {
				if !errors.Is(err, errGitConfig) {
					t.Fatalf("got %v, %v; want an error", vars, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := listed(vars); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// The same cases through the real git, so the table says what git does
// rather than what this reader does.
func TestParseGitConfigAgreesWithGit(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skipf("git is not installed, so there is nothing to compare with: %v", err)
	}
	dir := t.TempDir()
	for _, tc := range gitConfigCases {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(dir, "cfg")
			if err := os.WriteFile(f, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(gitBin, "config", "--file", f, "--null", "--list")
			cmd.Env = []string{"HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "PATH=/usr/bin:/bin"}
			out, err := cmd.Output()
			if tc.bad {
				if err == nil {
					t.Fatalf("git accepted it: %q", out)
				}
				return
			}
			if err != nil {
				t.Fatalf("git refused it: %v", err)
			}
			var got []string
			for _, rec := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
				// --null prints name, newline, value; a bare key has no newline.
				got = append(got, strings.Replace(rec, "\n", "=", 1))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("git read %q, the table says %q", got, tc.want)
			}
		})
	}
}

func listed(vars []gitVar) []string {
	var out []string
	for _, v := range vars {
		if v.HasValue {
			out = append(out, v.Name+"="+v.Value)
		} else {
			out = append(out, v.Name)
		}
	}
	return out
}

func TestParseGitConfigErrorNamesTheLine(t *testing.T) {
	_, err := parseGitConfig([]byte("[core]\n\thooksPath = ok\n\tworktree = \"bad\n"))
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("got %v, want an error on line 3", err)
	}
}

// Whatever the bytes, the reader returns values or an error, and never
// panics or loops.
func FuzzParseGitConfig(f *testing.F) {
	for _, tc := range gitConfigCases {
		f.Add([]byte(tc.src))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		vars, err := parseGitConfig(src)
		if err != nil && !errors.Is(err, errGitConfig) {
			t.Fatalf("error without errGitConfig: %v", err)
		}
		for _, v := range vars {
			if !strings.Contains(v.Name, ".") && strings.ContainsAny(v.Name, "[]") {
				t.Fatalf("bad name %q", v.Name)
			}
		}
	})
}
