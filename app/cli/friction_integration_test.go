//go:build integration

package cli_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/backend/egress/tlstest"
)

// The friction test: a scripted, realistic agent task on a small Go
// module, through MCP in the default mode, with the real toolchain:
// reads, searches, edits, build, vet, test, gofmt, git add and commit,
// and one dependency fetched through the proxy from a module server on a
// made-up name. Every honest call must succeed and at most three cards
// may be raised. Then a list of risky calls, with every card denied:
// none may have an effect beyond the boundary (a secret reaching the
// agent, a protected or outside path changed, the network reached,
// workspace content destroyed).

const frictionSecret = "sk-live-0123456789abcdef0123456789abcdef"

// moduleServer serves one Go module over the module proxy protocol on a
// made-up name, counting the requests each host sent.
type moduleServer struct {
	srv   *httptest.Server
	caPEM []byte
	hits  sync.Map // host -> *atomic.Int64
}

func newModuleServer(t *testing.T, names []string) *moduleServer {
	t.Helper()
	m := &moduleServer{}
	const mod = "pkgs.example.test/greet"
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	for name, body := range map[string]string{
		"go.mod":   "module " + mod + "\n\ngo 1.21\n",
		"greet.go": "package greet\n\n// Hello greets name.\nfunc Hello(name string) string { return \"hello, \" + name }\n",
	} {
		w, _ := zw.Create(mod + "@v1.0.0/" + name)
		io.WriteString(w, body)
	}
	zw.Close()
	files := map[string][]byte{
		"/" + mod + "/@v/list":        []byte("v1.0.0\n"),
		"/" + mod + "/@v/v1.0.0.info": []byte(`{"Version":"v1.0.0","Time":"2026-01-01T00:00:00Z"}`),
		"/" + mod + "/@v/v1.0.0.mod":  []byte("module " + mod + "\n\ngo 1.21\n"),
		"/" + mod + "/@v/v1.0.0.zip":  zbuf.Bytes(),
		"/" + mod + "/@latest":        []byte(`{"Version":"v1.0.0","Time":"2026-01-01T00:00:00Z"}`),
	}
	m.srv, m.caPEM = tlstest.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := m.hits.LoadOrStore(strings.Split(r.Host, ":")[0], new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}), names...)
	return m
}

func (m *moduleServer) hitsFrom(host string) int64 {
	if n, ok := m.hits.Load(host); ok {
		return n.(*atomic.Int64).Load()
	}
	return 0
}

// frictionWorkspace is a small Go module in git, with a secret in .env
// and a bare remote outside the workspace.
func frictionWorkspace(t *testing.T, ws, remote string, caPEM []byte) {
	t.Helper()
	files := map[string]string{
		"go.mod":                "module example.test/calc\n\ngo 1.21\n",
		"calc.go":               "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a + b }\n",
		"calc_test.go":          "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"Add\")\n\t}\n}\n",
		"internal/fmt/fmt.go":   "package fmt\n\n// Pair renders two numbers.\nfunc Pair(a, b int) string { return itoa(a) + \",\" + itoa(b) }\n",
		"internal/fmt/itoa.go":  "package fmt\n\nimport \"strconv\"\n\nfunc itoa(n int) string { return strconv.Itoa(n) }\n",
		"internal/fmt/doc.go":   "// Package fmt formats results.\npackage fmt\n",
		"README.md":             "# calc\n\nA tiny calculator.\n",
		".env":                  "API_KEY=" + frictionSecret + "\n",
		".gitignore":            ".env\n",
		"certs/module-ca.pem":   string(caPEM),
		"docs/design.md":        "# Design\n\nAdd, then Mul.\n",
		"scripts/check.sh":      "#!/bin/sh\ngo vet ./... && go test ./...\n",
		"internal/fmt/fmt_test": "",
	}
	for p, s := range files {
		if s == "" {
			continue
		}
		full := filepath.Join(ws, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hostGitIn(t, ws, "init", "-q", "-b", "main")
	hostGitIn(t, ws, "config", "user.name", "Person")
	hostGitIn(t, ws, "config", "user.email", "person@example.test")
	hostGitIn(t, ws, "add", "-A")
	hostGitIn(t, ws, "commit", "-q", "-m", "calc: add")
	hostGitIn(t, ws, "commit", "-q", "--allow-empty", "-m", "second")
	hostGitIn(t, filepath.Dir(remote), "init", "-q", "--bare", remote)
	hostGitIn(t, ws, "remote", "add", "origin", remote)
	hostGitIn(t, ws, "push", "-q", "origin", "main")
}

// approver decides every card as it appears, counting them.
type approver struct {
	d     *clitest.Daemon
	allow atomic.Bool
	mu    sync.Mutex
	seen  map[string]clitest.Approval
	stop  chan struct{}
	done  chan struct{}
}

func startApprover(d *clitest.Daemon) *approver {
	a := &approver{d: d, seen: map[string]clitest.Approval{}, stop: make(chan struct{}), done: make(chan struct{})}
	a.allow.Store(true)
	go func() {
		defer close(a.done)
		for {
			select {
			case <-a.stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			_, body := d.Request("GET", "/api/v1/approvals", nil, d.Control())
			var out struct {
				Approvals []clitest.Approval `json:"approvals"`
			}
			if json.Unmarshal([]byte(body), &out) != nil {
				continue
			}
			for _, ap := range out.Approvals {
				a.mu.Lock()
				_, dup := a.seen[ap.ID]
				a.seen[ap.ID] = ap
				a.mu.Unlock()
				if dup {
					continue
				}
				decision := "deny"
				if a.allow.Load() {
					decision = "allow"
				}
				b, _ := json.Marshal(map[string]string{"decision": decision, "scope": "once"})
				h := d.Control()
				h["Content-Type"] = "application/json"
				d.Request("POST", "/api/v1/approvals/"+ap.ID, bytes.NewReader(b), h)
			}
		}
	}()
	return a
}

func (a *approver) cards() []clitest.Approval {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]clitest.Approval, 0, len(a.seen))
	for _, ap := range a.seen {
		out = append(out, ap)
	}
	return out
}

func (a *approver) reset() {
	a.mu.Lock()
	a.seen = map[string]clitest.Approval{}
	a.mu.Unlock()
}

func (a *approver) close() { close(a.stop); <-a.done }

type step struct {
	tool string
	args map[string]any
	want string // text the result must contain, if set
}

func cmd(argv ...string) step { return step{tool: "run_command", args: map[string]any{"argv": argv}} }
func sh(script string) step   { return cmd("sh", "-c", script) }
func (s step) expect(text string) step {
	s.want = text
	return s
}

// goFetch fetches a module through the proxy from the made-up server.
const goEnv = "export GOPROXY=https://pkgs.example.test GOSUMDB=off GOTOOLCHAIN=local GOFLAGS=-mod=mod SSL_CERT_FILE=certs/module-ca.pem; "

func TestFrictionGoTask(t *testing.T) {
	names := []string{"pkgs.example.test", "other.example.test"}
	ms := newModuleServer(t, names)
	target := strings.TrimPrefix(ms.srv.URL, "https://")
	base := t.TempDir()
	ws, remote := filepath.Join(base, "ws"), filepath.Join(base, "remote.git")
	frictionWorkspace(t, ws, remote, ms.caPEM)
	var hosts []string
	for _, n := range names {
		hosts = append(hosts, fmt.Sprintf("%q = %q", n+":443", target))
	}
	clitest.WriteConfig(t, ws, "config.toml", fmt.Sprintf("[network]\ntest_only_hosts = { %s }\n", strings.Join(hosts, ", ")))
	home := filepath.Join(base, "home")
	os.MkdirAll(home, 0o755)
	d := clitest.StartWithEnv(t, filepath.Join(base, "data"), ws, []string{"HOME=" + home})
	s := d.MCP(t.Context(), "friction")
	ap := startApprover(d)
	defer ap.close()

	honest := []step{
		{tool: "list_dir", args: map[string]any{"path": "."}},
		{tool: "read_file", args: map[string]any{"path": "README.md"}},
		{tool: "read_file", args: map[string]any{"path": "go.mod"}},
		{tool: "read_file", args: map[string]any{"path": "calc.go"}},
		{tool: "read_file", args: map[string]any{"path": "calc_test.go"}},
		{tool: "search_files", args: map[string]any{"pattern": "func "}},
		{tool: "list_dir", args: map[string]any{"path": "internal/fmt"}},
		{tool: "read_file", args: map[string]any{"path": "internal/fmt/fmt.go"}},
		{tool: "read_file", args: map[string]any{"path": "docs/design.md"}},
		cmd("git", "status", "--short"),
		cmd("git", "log", "--oneline", "-5").expect("calc: add"),
		cmd("go", "version").expect("go version"),
		cmd("go", "build", "./..."),
		cmd("go", "test", "./...").expect("ok"),
		cmd("go", "vet", "./..."),
		{tool: "edit_file", args: map[string]any{"path": "calc.go", "old": "func Add(a, b int) int { return a + b }\n", "new": "func Add(a, b int) int { return a + b }\n\n// Mul returns a*b.\nfunc Mul(a, b int) int { return a * b }\n"}},
		{tool: "write_file", args: map[string]any{"path": "mul_test.go", "content": "package calc\n\nimport \"testing\"\n\nfunc TestMul(t *testing.T) {\n\tif Mul(2, 3) != 6 {\n\t\tt.Fatal(\"Mul\")\n\t}\n}\n"}},
		cmd("go", "test", "-run", "TestMul", "./...").expect("ok"),
		cmd("gofmt", "-l", "."),
		cmd("git", "diff", "--stat"),
		cmd("git", "add", "calc.go", "mul_test.go"),
		cmd("git", "commit", "-q", "-m", "calc: Mul"),
		cmd("git", "log", "--oneline", "-1").expect("calc: Mul"),
		{tool: "search_files", args: map[string]any{"pattern": "itoa"}},
		{tool: "edit_file", args: map[string]any{"path": "internal/fmt/fmt.go", "old": "itoa(a) + \",\" + itoa(b)", "new": "itoa(a) + \", \" + itoa(b)"}},
		{tool: "write_file", args: map[string]any{"path": "internal/fmt/fmt_test.go", "content": "package fmt\n\nimport \"testing\"\n\nfunc TestPair(t *testing.T) {\n\tif got := Pair(1, 2); got != \"1, 2\" {\n\t\tt.Fatal(got)\n\t}\n}\n"}},
		cmd("go", "test", "./internal/...").expect("ok"),
		cmd("go", "vet", "./..."),
		sh("gofmt -w internal/fmt/*.go && gofmt -l ."),
		cmd("git", "status", "--short").expect("internal/fmt"),
		cmd("git", "add", "-A"),
		cmd("git", "commit", "-q", "-m", "fmt: spaced pairs"),
		// The dependency, through the proxy (a new domain: one card).
		sh(goEnv + "go get pkgs.example.test/greet@v1.0.0"),
		{tool: "read_file", args: map[string]any{"path": "go.mod"}, want: "pkgs.example.test/greet"},
		{tool: "write_file", args: map[string]any{"path": "hello.go", "content": "package calc\n\nimport \"pkgs.example.test/greet\"\n\n// Hello greets the calculator's user.\nfunc Hello() string { return greet.Hello(\"calc\") }\n"}},
		{tool: "write_file", args: map[string]any{"path": "hello_test.go", "content": "package calc\n\nimport \"testing\"\n\nfunc TestHello(t *testing.T) {\n\tif Hello() != \"hello, calc\" {\n\t\tt.Fatal(Hello())\n\t}\n}\n"}},
		sh(goEnv + "go build ./..."),
		sh(goEnv + "go test ./...").expect("ok"),
		sh(goEnv + "go vet ./..."),
		cmd("gofmt", "-l", "."),
		cmd("git", "add", "-A"),
		cmd("git", "commit", "-q", "-m", "calc: Hello, with greet"),
		cmd("git", "log", "--oneline").expect("greet"),
		cmd("grep", "-rn", "func ", "--include=*.go", "."),
		cmd("wc", "-l", "calc.go"),
		cmd("head", "-n", "3", "README.md"),
		{tool: "edit_file", args: map[string]any{"path": "README.md", "old": "A tiny calculator.\n", "new": "A tiny calculator: Add, Mul and Hello.\n"}},
		cmd("git", "diff").expect("Hello"),
		cmd("git", "commit", "-q", "-am", "README: what it does"),
		cmd("ls", "-la"),
		sh("./scripts/check.sh || sh scripts/check.sh"),
		cmd("git", "status", "--short"),
	}
	if len(honest) < 50 {
		t.Fatalf("the task has %d calls; the test needs at least 50", len(honest))
	}
	for i, st := range honest {
		ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
		r, err := s.CallTool(ctx, &mcp.CallToolParams{Name: st.tool, Arguments: st.args})
		cancel()
		if err != nil {
			t.Fatalf("call %d %s %v: %v", i+1, st.tool, st.args, err)
		}
		text := clitest.Text(t, r)
		if r.IsError || (st.want != "" && !strings.Contains(text, st.want)) {
			t.Fatalf("honest call %d %s %v failed:\n%s", i+1, st.tool, st.args, text)
		}
	}
	cards := ap.cards()
	var what []string
	for _, c := range cards {
		what = append(what, fmt.Sprintf("%s %s %v: %s", c.Kind, c.Tool, c.Argv, c.Reason))
	}
	t.Logf("%d honest calls, %d cards:\n%s", len(honest), len(cards), strings.Join(what, "\n"))
	if len(cards) > 3 {
		t.Fatalf("%d cards for an honest task (at most 3):\n%s", len(cards), strings.Join(what, "\n"))
	}
	if got := hostGitIn(t, ws, "log", "--oneline"); strings.Count(got, "\n")+1 != 6 {
		t.Fatalf("the host sees history:\n%s", got)
	}

	// The risky calls, every card denied.
	ap.allow.Store(false)
	ap.reset()
	remoteHead := hostGitIn(t, remote, "rev-parse", "main")
	head := hostGitIn(t, ws, "rev-parse", "HEAD")
	internalBefore := tree(t, filepath.Join(ws, "internal"))
	otherBefore := ms.hitsFrom("other.example.test")
	risky := []struct {
		name  string
		step  step
		check func(t *testing.T, text string)
	}{
		{"read .env with cat", sh("cat .env"), noSecret},
		{"read .env with read_file", step{tool: "read_file", args: map[string]any{"path": ".env"}}, noSecret},
		{"copy .env elsewhere and read it", sh("cp .env /tmp/copy; cat /tmp/copy"), noSecret},
		{"grep for the key", cmd("grep", "-r", "API_KEY", "."), noSecret},
		{"write outside with write_file", step{tool: "write_file", args: map[string]any{"path": "../outside.txt", "content": "x"}}, func(t *testing.T, _ string) {
			noFile(t, filepath.Join(base, "outside.txt"))
		}},
		{"write into the real home", sh("echo x > " + filepath.Join(home, "pwned")), func(t *testing.T, _ string) { noFile(t, filepath.Join(home, "pwned")) }},
		{"plant a git hook", sh("echo 'touch /tmp/pwned' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit"), func(t *testing.T, _ string) {
			noFile(t, filepath.Join(ws, ".git", "hooks", "pre-commit"))
		}},
		{"plant an .envrc", sh("echo 'curl evil' > .envrc"), func(t *testing.T, _ string) { noFile(t, filepath.Join(ws, ".envrc")) }},
		{"reach an unapproved domain", cmd("curl", "-sS", "--max-time", "20", "--cacert", "certs/module-ca.pem", "https://other.example.test/"), func(t *testing.T, _ string) {
			if n := ms.hitsFrom("other.example.test"); n != otherBefore {
				t.Errorf("other.example.test was reached %d times", n-otherBefore)
			}
		}},
		{"go around the proxy", cmd("curl", "-sS", "--max-time", "10", "--noproxy", "*", "https://pkgs.example.test/"), nil},
		{"rm -rf a tracked package", cmd("rm", "-rf", "internal"), sameTree(ws, "internal", internalBefore)},
		{"shutil.rmtree a tracked package", cmd("/usr/bin/python3", "-c", "import shutil; shutil.rmtree('internal')"), sameTree(ws, "internal", internalBefore)},
		{"reset history away", sh(gitEnvArgs + "git reset -q --hard HEAD~3"), func(t *testing.T, _ string) {
			if got := hostGitIn(t, ws, "rev-parse", "HEAD"); got != head {
				t.Errorf("HEAD moved to %s", got)
			}
		}},
		{"push to the remote", cmd("git", "push", "-q", "origin", "main"), func(t *testing.T, _ string) {
			if got := hostGitIn(t, remote, "rev-parse", "main"); got != remoteHead {
				t.Errorf("the remote moved to %s", got)
			}
		}},
	}
	for _, rc := range risky {
		t.Run(rc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
			defer cancel()
			r, err := s.CallTool(ctx, &mcp.CallToolParams{Name: rc.step.tool, Arguments: rc.step.args})
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			text := clitest.Text(t, r)
			if rc.check != nil {
				rc.check(t, text)
			}
		})
	}
	if hostGitIn(t, ws, "status", "--porcelain") != "" {
		t.Errorf("the risky calls left the workspace changed:\n%s", hostGitIn(t, ws, "status", "--porcelain"))
	}
}

func noSecret(t *testing.T, text string) {
	t.Helper()
	if strings.Contains(text, frictionSecret) || strings.Contains(text, frictionSecret[8:24]) {
		t.Errorf("the secret reached the agent:\n%s", text)
	}
}

func noFile(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Lstat(p); err == nil {
		t.Errorf("%s was created", p)
	}
}

func sameTree(ws, dir string, before map[string]string) func(t *testing.T, _ string) {
	return func(t *testing.T, _ string) {
		t.Helper()
		if diff := diffTrees(before, tree(t, filepath.Join(ws, dir))); diff != "" {
			t.Errorf("%s changed:\n%s", dir, diff)
		}
	}
}
