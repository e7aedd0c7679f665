package agentprofile

import (
	"strings"
	"testing"
)

func TestUnconfined(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"-w"}, true},
		{[]string{"-p", "hi", "--worktree"}, true},
		{[]string{"--worktree=feature"}, true},
		{[]string{"-p", "--", "-w"}, false},
		{[]string{"-p", "write -w docs"}, false},
		{[]string{"--web"}, false},
		{nil, false},
	} {
		if got := claude.Unconfined(tc.args) != ""; got != tc.want {
			t.Errorf("%q: %v, want %v", tc.args, got, tc.want)
		}
	}
	if codex.Unconfined([]string{"-w"}) != "" {
		t.Error("codex has no such flag")
	}
}

func TestNamedDirs(t *testing.T) {
	for _, tc := range []struct {
		p    Profile
		args []string
		want string
	}{
		{claude, []string{"--add-dir", "../a", "../b", "-p", "hi"}, "../a ../b"},
		{claude, []string{"--add-dir=../a", "-p", "--", "--add-dir", "x"}, "../a"},
		{codex, []string{"-C", "../proj", "exec", "do it"}, "../proj"},
		{codex, []string{"--cd=../proj", "--add-dir", "/srv/data"}, "../proj /srv/data"},
		{gemini, []string{"--include-directories", "../a,../b", "-p", "x"}, "../a ../b"},
		{gemini, []string{"-p", "x"}, ""},
	} {
		if got := strings.Join(tc.p.NamedDirs(tc.args), " "); got != tc.want {
			t.Errorf("%s %q: %q, want %q", tc.p.Name, tc.args, got, tc.want)
		}
	}
}
