package policy

import (
	_ "embed"
	"os"
	"path/filepath"
	"testing"
)

// userPolicyTOML is the person's file used by the table test. The comments
// and odd spacing are deliberate: AppendRule must keep them.
//
//go:embed testdata/user-policy.toml
var userPolicyTOML string

// workspacePolicyTOML tries to loosen (ignored) and tightens (applied).
//
//go:embed testdata/workspace-policy.toml
var workspacePolicyTOML string

type fixture struct {
	dir, home, ws, userFile string
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	d := t.TempDir()
	f := fixture{dir: d, home: filepath.Join(d, "home/u")}
	f.ws = filepath.Join(f.home, "proj")
	f.userFile = filepath.Join(d, "config/gatehouse/policy.toml")
	for _, p := range []string{f.ws + "/.gatehouse", filepath.Dir(f.userFile)} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, f.userFile, userPolicyTOML)
	write(t, filepath.Join(f.ws, WorkspacePolicyFile), workspacePolicyTOML)
	return f
}

// in is rel's path in the fixture's workspace.
func (f fixture) in(rel string) string { return filepath.Join(f.ws, rel) }

// cmd is a run_command call of bin in the workspace.
func (f fixture) cmd(bin string, argv ...string) Action {
	return Action{Tool: ToolRunCommand, Binary: bin, Cwd: f.ws, Argv: argv}
}

func write(t testing.TB, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
