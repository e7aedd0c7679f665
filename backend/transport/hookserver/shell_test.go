package hookserver

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/transport/hookwire"
)

// loadCommands reads testdata/commands.txt: a command per line, or the
// lines between two "%%" lines as one command; "#" lines are comments.
func loadCommands(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/commands.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out, block []string
	inBlock := false
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		switch {
		case l == "%%" && inBlock:
			out = append(out, strings.Join(block, "\n"))
			block, inBlock = nil, false
		case l == "%%":
			inBlock = true
		case inBlock:
			block = append(block, l)
		case strings.HasPrefix(l, "#") || l == "":
		default:
			out = append(out, l)
		}
	}
	if inBlock {
		t.Fatal("testdata/commands.txt: a %% block is not closed")
	}
	return out
}

// TestExecLineCarriesTheCommandExactly runs every rewritten line through a
// real bash (and sh) with a stand-in for gatehouse that writes the command
// it was given: it must be the agent's command, byte for byte.
func TestExecLineCarriesTheCommandExactly(t *testing.T) {
	cmds := loadCommands(t)
	if len(cmds) < 100 {
		t.Fatalf("only %d commands in testdata/commands.txt; keep at least 100", len(cmds))
	}
	dir := t.TempDir()
	// This test is about shell quoting, so the binary is an argv recorder;
	// the real `gatehouse exec` behind these lines runs end to end in
	// app/cli's TestInstalledAgentOwnShellRunsInSandbox (real agents).
	recorder := filepath.Join(dir, "gate house") // a space in the binary's path too
	got, head := filepath.Join(dir, "got"), filepath.Join(dir, "head")
	// The stand-in writes its last argument (the command), and every one
	// before "--" a line each (global flags, agent, ticket).
	script := "#!/bin/sh\n: > '" + head + "'\nfor a in \"$@\"; do\n  [ \"$a\" = -- ] && past=1\n  [ -z \"$past\" ] && printf '%s\\n' \"$a\" >> '" + head + "'\n  last=$a\ndone\nprintf '%s' \"$last\" > '" + got + "'\n"
	const wantHead = "--data\n/tmp/data dir\nexec\n--agent\nclaude\n--ticket\nt0123\n"
	if err := os.WriteFile(recorder, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	shells := []string{"bash", "sh"}
	for _, sh := range shells {
		if _, err := exec.LookPath(sh); err != nil {
			t.Fatalf("%s is needed for this test: %v", sh, err)
		}
	}
	for _, cmd := range cmds {
		line, err := execLine([]string{recorder, "--data", "/tmp/data dir"}, hookwire.Claude, "t0123", cmd, false)
		if err != nil {
			t.Fatalf("%q: %v", cmd, err)
		}
		for _, sh := range shells {
			os.Remove(got)
			out, err := exec.Command(sh, "-c", line).CombinedOutput()
			if err != nil {
				t.Errorf("%s -c %q: %v %s", sh, line, err, out)
				continue
			}
			b, err := os.ReadFile(got)
			if err != nil || string(b) != cmd {
				t.Errorf("%s: the rewritten line carried %q, want %q", sh, b, cmd)
			}
			if h, err := os.ReadFile(head); err != nil || string(h) != wantHead {
				t.Errorf("%s: the rewritten line's arguments were %q, want %q", sh, h, wantHead)
			}
		}
	}
}

func TestExecLineRefusesNUL(t *testing.T) {
	if _, err := execLine([]string{"/bin/gatehouse"}, hookwire.Claude, "t1", "echo a\x00b", false); err == nil {
		t.Fatal("a command with a NUL byte was rewritten")
	}
}

func TestSimpleWords(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
	}{
		{"git status", []string{"git", "status"}},
		{"  go   test ./...  ", []string{"go", "test", "./..."}},
		{"ls -la src/", []string{"ls", "-la", "src/"}},
		{"echo $HOME", nil},
		{"cat a | grep b", nil},
		{"echo 'x'", nil},
		{"ls *.go", nil},
		{"FOO=1 make", nil},
		{"cd ~", nil},
		{"cd sub", nil},
		{"source venv/bin/activate", nil},
		{"time make", nil},
		{"pwd", []string{"pwd"}},
		{"a\nb", nil},
		{"", nil},
	}
	for _, tt := range tests {
		got, ok := simpleWords(tt.cmd)
		if ok != (tt.want != nil) || strings.Join(got, "\x00") != strings.Join(tt.want, "\x00") {
			t.Errorf("simpleWords(%q) = %q %v, want %q", tt.cmd, got, ok, tt.want)
		}
	}
}

// TestExecLineMovesTheAgentsShell: the line that moves moves the shell
// that runs it into the directory exec left in its temporary directory,
// keeps exec's status, and leaves no file behind; with none left, it
// stays.
func TestExecLineMovesTheAgentsShell(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "moved here")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	// A stand-in for exec: leaves $MOVE in the file after --cd-file when
	// asked, and exits 3.
	stand := filepath.Join(dir, "exec")
	script := "#!/bin/sh\nwhile [ \"$1\" != --cd-file ]; do shift; done\n[ -n \"$MOVE\" ] && printf '%s\\n' \"$MOVE\" > \"$2\"\nexit 3\n"
	if err := os.WriteFile(stand, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	line, err := execLine([]string{stand}, hookwire.Claude, "t1", "cd x", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, sh := range []string{"bash", "sh"} {
		for _, move := range []string{target, ""} {
			// As Claude Code runs it: eval'd, then its directory recorded.
			c := exec.Command(sh, "-c", `eval "$LINE"; echo "status=$?"; pwd`)
			c.Dir, c.Env = dir, append(os.Environ(), "LINE="+line, "MOVE="+move, "TMPDIR="+tmp)
			out, err := c.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v %s", sh, err, out)
			}
			want := "status=3\n" + dir + "\n"
			if move != "" {
				want = "status=3\n" + target + "\n"
			}
			if string(out) != want {
				t.Errorf("%s, exec leaving %q: got %q, want %q", sh, move, out, want)
			}
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				t.Errorf("%s: left in the temporary directory: %v", sh, left)
			}
		}
	}
}
