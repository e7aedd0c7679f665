package policy

import (
	"path"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// What the sandbox keeps read-only inside a writable workspace, file tools
// ask before writing: the two lists must not drift apart, or a name would
// be guarded on one path and open on the other.
func TestProtectedPathsMatchTheSandbox(t *testing.T) {
	for _, n := range protect.Names {
		p := path.Join("/ws", n)
		if _, ok := protectedPath(p); ok {
			continue
		}
		if _, ok := protectedPath(path.Join(p, "x")); !ok {
			t.Errorf("the sandbox protects %s, but writing it (or inside it) does not ask", n)
		}
	}
	for _, d := range []string{".claude", ".cursor", ".codex", ".gemini", ".vscode", ".idea"} {
		found := false
		for _, n := range protect.Names {
			found = found || n == d
		}
		if !found {
			t.Errorf("file tools ask before writing %s, but the sandbox lets commands write it", d)
		}
	}
}
