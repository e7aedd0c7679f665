package call

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportingEndDir runs commands with a real bash as a sandbox would,
// TMPDIR the session's: a command that moves and succeeds reports where
// it ended; one that fails, stays, leaves the workspace or sets its own
// EXIT trap reports nothing; and the command sees nothing of it: its
// status, its error messages and its children's environment are its own.
func TestReportingEndDir(t *testing.T) {
	ws, tmp := t.TempDir(), t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	sub := filepath.Join(ws, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, cmd string
		want      string
		status    int
		output    string // what it prints, if it matters
	}{
		{"moves", "cd sub", sub, 0, ""},
		{"moves and goes on", "cd sub && ls >/dev/null", sub, 0, ""},
		{"fails after moving", "cd sub && false", "", 1, ""},
		{"exits with its own status", "cd sub; exit 3", "", 3, ""},
		{"stays", "true", "", 0, ""},
		{"leaves the workspace", "cd /", "/", 0, ""}, // the transport keeps the shell in
		{"its own trap", "trap 'echo bye' EXIT; cd sub", "", 0, "bye\n"},
		{"children see no BASH_ENV", "cd sub; env | grep -c BASH_ENV", "", 1, "0\n"},
		{"a syntax error quotes only the command", "if then", "", 2, "bash: -c: line 1: syntax error near unexpected token `then'\nbash: -c: line 1: `if then'\n"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			argv := []string{"bash", "-c", tt.cmd}
			env := []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=" + tmp}
			add, report := reportingEndDir(argv, env, tmp, "c_"+string(rune('a'+i)))
			if add == "" {
				t.Fatal("a bash command was not made to report")
			}
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir, cmd.Env = ws, append(env, add)
			out, err := cmd.CombinedOutput()
			status := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				status = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if status != tt.status {
				t.Errorf("status %d, want %d (%s)", status, tt.status, out)
			}
			if tt.output != "" && string(out) != tt.output {
				t.Errorf("output %q, want %q", out, tt.output)
			}
			if got := readEndDir(report, ws); got != tt.want {
				t.Errorf("ended in %q, want %q", got, tt.want)
			}
			if left, _ := filepath.Glob(filepath.Join(tmp, endDirName+"*")); len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

// TestReportingEndDirOnlyForBash: a program run without a shell cannot
// move, and a BASH_ENV of the person's own is left to work.
func TestReportingEndDirOnlyForBash(t *testing.T) {
	tmp := t.TempDir()
	for _, c := range []struct {
		argv, env []string
	}{
		{[]string{"ls", "-la"}, nil},
		{[]string{"bash", "-c", "cd x"}, []string{"BASH_ENV=/home/p/.bashenv"}},
		{[]string{"sh", "-c", "cd x"}, nil},
	} {
		if add, report := reportingEndDir(c.argv, c.env, tmp, "c_1"); add != "" || report != "" {
			t.Errorf("%q with %q: made to report (%q)", c.argv, c.env, add)
		}
	}
	if add, _ := reportingEndDir([]string{"bash", "-c", "cd x"}, nil, "", "c_1"); add != "" {
		t.Error("made to report without a temporary directory")
	}
}

// TestReadEndDirTrustsNothing: the report is the command's to forge; only
// one clean absolute path, other than where it started, is taken (the
// transport checks where it leads).
func TestReadEndDirTrustsNothing(t *testing.T) {
	ws, tmp := t.TempDir(), t.TempDir()
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte(ws+"/sub\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, body string
		link       bool
	}{
		{"not clean", ws + "/sub/../../etc\n", false},
		{"relative", "sub\n", false},
		{"two lines", ws + "/a\n" + ws + "/b\n", false},
		{"unfinished", ws + "/sub", false},
		{"too long", ws + "/" + strings.Repeat("a", maxEndDir) + "\n", false},
		{"a link to another file", "", true},
		{"where it started", ws + "\n", false},
	} {
		file := filepath.Join(tmp, endDirName+"x")
		if c.link {
			if err := os.Symlink(secret, file); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(file, []byte(c.body), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := readEndDir(file, ws); got != "" {
			t.Errorf("%s: took %q", c.name, got)
		}
		if _, err := os.Lstat(file); !os.IsNotExist(err) {
			t.Errorf("%s: the report was left", c.name)
		}
	}
}
