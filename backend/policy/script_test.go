package policy

import (
	"slices"
	"testing"
)

func TestShellScriptWords(t *testing.T) {
	tests := []struct {
		base string
		args []string
		want []string
	}{
		{"bash", []string{"-c", "cat ~/.ssh/id_rsa | head -1"}, []string{"-c", "cat", "~/.ssh/id_rsa", "head", "-1"}},
		{"sh", []string{"-ec", `grep "a b" 'src/x y.go'>out.txt`}, []string{"-ec", "grep", "a b", "src/x y.go", "out.txt"}},
		{"bash", []string{"script.sh", "arg"}, []string{"script.sh", "arg"}},
		{"cat", []string{"-c", "a/b c"}, []string{"-c", "a/b c"}},
	}
	for _, tt := range tests {
		if got := shellScriptWords(tt.base, tt.args); !slices.Equal(got, tt.want) {
			t.Errorf("shellScriptWords(%s, %q) = %q, want %q", tt.base, tt.args, got, tt.want)
		}
	}
}

// TestScriptPathIsThePath: a credential path inside `bash -c` is named on
// the card as itself, not as the cwd joined to the whole script.
func TestScriptPathIsThePath(t *testing.T) {
	s := Session{Mode: ModeAuto, Workspaces: []string{"/home/u/proj"}, Home: "/home/u", Sandboxed: true}
	dec := Builtin().Decide(s, Action{Tool: ToolRunCommand, Argv: []string{"bash", "-c", "cat ~/.ssh/id_rsa | head -1"}, Binary: "/usr/bin/bash", Cwd: "/home/u/proj"})
	var details []string
	for _, r := range dec.Risks {
		details = append(details, r.Detail)
	}
	if !slices.Contains(details, "/home/u/.ssh/id_rsa may hold credentials") {
		t.Fatalf("risks %q, want the key's own path", details)
	}
	if !slices.Equal(dec.SandboxHides, []string{"/home/u/.ssh/id_rsa"}) {
		t.Fatalf("SandboxHides %q: the sandbox hides the key whatever the card says", dec.SandboxHides)
	}
	s.Sandboxed = false
	if dec := Builtin().Decide(s, Action{Tool: ToolRunCommand, Argv: []string{"cat", "/home/u/.ssh/id_rsa"}, Binary: "/usr/bin/cat", Cwd: "/home/u/proj"}); len(dec.SandboxHides) != 0 {
		t.Fatalf("with no sandbox nothing is hidden: %q", dec.SandboxHides)
	}
}
