package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPathLines: the lines install prints put the directory first on PATH
// in bash and fish, whatever characters the directory has.
func TestPathLines(t *testing.T) {
	cases := []struct {
		dir, bash, fish string
	}{
		{"/home/u/.local/share/gatehouse/shims", `export PATH="/home/u/.local/share/gatehouse/shims:$PATH"`, "set -gx PATH /home/u/.local/share/gatehouse/shims $PATH"},
		{"/home/u/My Data/shims", `export PATH="/home/u/My Data/shims:$PATH"`, "set -gx PATH '/home/u/My Data/shims' $PATH"},
		{"/home/u/$x's/shims", `export PATH='/home/u/$x'\''s/shims':"$PATH"`, `set -gx PATH '/home/u/$x'\''s/shims' $PATH`},
	}
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) {
			got := pathLines(c.dir)
			for _, want := range []string{c.bash, c.fish} {
				if !strings.Contains(got, want+"\n") {
					t.Errorf("no %q in:\n%s", want, got)
				}
			}
			// The bash line, run, gives the directory first.
			line := strings.TrimSpace(c.bash)
			out, err := exec.Command("/bin/sh", "-c", line+`; printf %s "${PATH%%:*}"`).Output()
			if err != nil || string(out) != c.dir {
				t.Errorf("%s gives %q first (%v)", line, out, err)
			}
		})
	}
}

// TestInstallLauncherSays: install says where the launcher is and how to
// put it on PATH, or that it is there already; uninstall says whether
// the PATH line is still needed.
func TestInstallLauncherSays(t *testing.T) {
	data := t.TempDir()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "gemini"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	shims := filepath.Join(data, "shims")
	steps := []struct {
		name, path string
		do         func(w *strings.Builder) error
		want       []string
	}{
		{"new, PATH not set", bin, func(w *strings.Builder) error { return installLauncher(w, data, "gemini") },
			[]string{"created   " + filepath.Join(shims, "gemini"), "Typing gemini starts it confined (gatehouse run gemini) when " + shims + " comes first on your PATH", `export PATH="` + shims + `:$PATH"`}},
		{"again, PATH set", shims + ":" + bin, func(w *strings.Builder) error { return installLauncher(w, data, "gemini") },
			[]string{"comes first on your PATH already", "A dev server it starts answers your browser with GATEHOUSE_PUBLISH=5173 gemini"}},
		{"no agent", shims, func(w *strings.Builder) error { return installLauncher(w, data, "codex") },
			[]string{"codex is not on your PATH yet; once it is, typing codex starts it confined (gatehouse run codex): " + shims + " comes first on your PATH already"}},
		{"remove one of two", shims, func(w *strings.Builder) error { _, err := removeLauncher(w, data, "gemini"); return err },
			[]string{"removed   " + filepath.Join(shims, "gemini"), "still leads to the launchers for codex"}},
		{"remove the last", shims, func(w *strings.Builder) error { _, err := removeLauncher(w, data, "codex"); return err },
			[]string{"take the line that puts " + shims + " on your PATH out"}},
	}
	for _, s := range steps {
		t.Setenv("PATH", s.path)
		var w strings.Builder
		if err := s.do(&w); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		for _, want := range s.want {
			if !strings.Contains(w.String(), want) {
				t.Errorf("%s: no %q in:\n%s", s.name, want, w.String())
			}
		}
	}
}
