package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// userPolicyTOML is the person's file used by the table test. The comments
// and odd spacing are deliberate: AppendRule must keep them.
const userPolicyTOML = `# my gatehouse policy
# (hand-written; keep my comments)

[[rule]]
id = "allow-gh-pr"
action = "allow"
binary = "/usr/bin/gh"
args = ["pr"]

[[rule]]
id     = "deny-git-push"
action = "deny"
binary = "/usr/bin/git"
args   = ["push"]

[[rule]]
id = "allow-git-push-origin"
action = "allow"
binary = "/usr/bin/git"
args = ["push", "origin"]

[[rule]]
id = "allow-force-push-mine"
action = "allow"
binary = "/usr/bin/git"
args = ["push", "--force", "mine"]

[[rule]]
id = "allow-pytest"
action = "allow"
binary = "/usr/bin/python3"
args = ["-m", "pytest"]

[[rule]]
id = "allow-opt-tools"
action = "allow"
binary = "/opt/tools/*"

[[rule]]
id = "allow-npm-lint"
action = "allow"
binary = "/usr/bin/npm"
args = ["run", "lint"]

[[rule]]
id = "allow-go-generate"
action = "allow"
binary = "/usr/local/go/bin/go"
args = ["generate"]

[[rule]]
id = "allow-gh-auth-token"
action = "allow"
binary = "/usr/bin/gh"
args = ["auth", "token"]

[[rule]]
id = "allow-docs"
action = "allow"
domains = ["go.dev", "*.golang.org"]

[[rule]]
id = "deny-evil"
action = "deny"
domains = ["*.evil.example"]
reason = "known bad"

[[rule]]
id = "allow-notes"
action = "allow"
tool = "read_file"
paths = ["~/notes/**"]

[[rule]]
id = "allow-aws-config"
action = "allow"
tool = "read_file"
paths = ["~/.aws/config"]

[[rule]]
id = "deny-etc-writes"
action = "deny"
tool = "write_file"
paths = ["/etc/**"]

[[rule]]
id = "allow-curl"
action = "allow"
binary = "/usr/bin/curl"

[[rule]]
id = "ask-curl"
action = "ask"
binary = "/usr/bin/curl"

[[rule]]
id = "allow-wget"
action = "allow"
binary = "/usr/bin/wget"

[[rule]]
id = "deny-wget"
action = "deny"
binary = "/usr/bin/wget"
`

// workspacePolicyTOML tries to loosen (ignored) and tightens (applied).
const workspacePolicyTOML = `
[[rule]]
id = "ws-allow-bash"
action = "allow"
binary = "/usr/bin/bash"

[[rule]]
id = "ws-deny-vendor"
action = "deny"
tool = "write_file"
paths = ["vendor/**"]

[[rule]]
id = "ws-ask-private"
action = "ask"
paths = ["private/**"]

[[rule]]
id = "ws-deny-merge"
action = "deny"
binary = "/usr/bin/gh"
args = ["pr", "merge"]

[[rule]]
id = "ws-ask-go-dev"
action = "ask"
domains = ["go.dev"]
`

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
