package agentprofile

import "testing"

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
