// Package clitest builds the real gatehouse binary and runs it for
// integration tests: a daemon with its own data dir and workspace, and CLI
// invocations against it.
package clitest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// DesktopTags build gatehouse-desktop: the Wails window (and the tray on
// macOS).
const DesktopTags = "desktop,production,webkit2_41"

type build struct {
	once sync.Once
	path string
	err  error
}

var headless, desktop build

// Main runs a test package's tests, then removes the binaries built for
// them (some 50 MB a process), whatever the tests' outcome. A package
// that builds through this one calls it from its TestMain.
func Main(m *testing.M) int {
	code := m.Run()
	for _, b := range []*build{&headless, &desktop} {
		if b.path != "" {
			_ = os.RemoveAll(filepath.Dir(b.path))
		}
	}
	return code
}

// Binary builds the headless gatehouse (and the sandbox helper next to it)
// once per test process and returns its path.
func Binary(t testing.TB) string {
	t.Helper()
	headless.once.Do(func() { headless.path, headless.err = buildHeadless() })
	if headless.err != nil {
		t.Fatalf("build gatehouse: %v", headless.err)
	}
	return headless.path
}

// DesktopBinary builds what `make build` puts in bin/: gatehouse, the
// sandbox helper and, next to them, gatehouse-desktop (GTK, WebKitGTK and
// cgo must be installed), once per test process. It returns the path of
// gatehouse, the program a person runs; the window is
// DesktopWindow(DesktopBinary(t)).
func DesktopBinary(t testing.TB) string {
	t.Helper()
	desktop.once.Do(func() {
		desktop.path, desktop.err = buildHeadless()
		if desktop.err != nil {
			return
		}
		win := DesktopWindow(desktop.path)
		if err := goBuild("1", "build", "-tags", DesktopTags, "-o", win, "."); err != nil {
			desktop.err = fmt.Errorf("%w\n(the desktop build needs: apt-get install -y libgtk-3-dev libwebkit2gtk-4.1-dev)", err)
		}
	})
	if desktop.err != nil {
		t.Fatalf("build gatehouse-desktop: %v", desktop.err)
	}
	return desktop.path
}

// DesktopWindow is gatehouse-desktop next to the gatehouse at bin.
func DesktopWindow(bin string) string { return filepath.Join(filepath.Dir(bin), "gatehouse-desktop") }

// buildHeadless builds like `make build`: the binary and, next to it, the
// small sandbox helper it re-executes for every command, in a fresh
// directory. The directory is world-readable so tests can run the binary
// as another user.
func buildHeadless() (string, error) {
	dir, err := os.MkdirTemp("", "gatehouse-bin-")
	if err != nil {
		return "", err
	}
	os.Chmod(dir, 0o755)
	path := filepath.Join(dir, "gatehouse")
	if err := goBuild("1", "build", "-o", path, "."); err != nil {
		return "", err
	}
	// The helper is static, as `make` builds it: the container backend
	// mounts it into images without a C library.
	if err := goBuild("0", "build", "-o", filepath.Join(dir, "gatehouse-sandbox-init"), "./sandbox/cmd/gatehouse-sandbox-init"); err != nil {
		return "", err
	}
	return path, nil
}

func goBuild(cgo string, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Dir = RepoRoot()
	cmd.Env = append(os.Environ(), "CGO_ENABLED="+cgo)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %v: %v\n%s", args, err, out)
	}
	return nil
}

// RepoRoot is the repository's top directory.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}

// Daemon is a running `gatehouse serve`.
type Daemon struct {
	t         testing.TB
	Bin       string
	Data      string
	Workspace string
	Addr      string
	Args      []string
	// ExtraEnv is added to the daemon's environment (set it before
	// Restart, or use StartWithEnv).
	ExtraEnv []string
	cmd      *exec.Cmd
	log      *LockedBuffer
	exited   chan struct{}
}

// LockedBuffer collects a child process's output while tests read it.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Start runs a daemon on a free loopback port with fresh dirs.
func Start(t testing.TB, extra ...string) *Daemon {
	t.Helper()
	base := t.TempDir()
	return StartWith(t, filepath.Join(base, "data"), filepath.Join(base, "ws"), extra...)
}

// StartBackend is Start with the config naming the sandbox backend.
func StartBackend(t testing.TB, backend string) *Daemon {
	t.Helper()
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	WriteConfig(t, ws, "config.toml", "[sandbox]\nbackend = \""+backend+"\"\n")
	return StartWith(t, filepath.Join(base, "data"), ws)
}

// StartAsk is Start in ask mode, where every command but the harmless ones
// raises a card: for tests of cards themselves (waiting, cancelling,
// deciding), whatever the default mode.
func StartAsk(t testing.TB, extra ...string) *Daemon {
	t.Helper()
	return Start(t, append([]string{"--mode", "ask"}, extra...)...)
}

// StartWith runs a daemon with the given data dir and workspace.
func StartWith(t testing.TB, data, ws string, extra ...string) *Daemon {
	t.Helper()
	return StartWithEnv(t, data, ws, nil, extra...)
}

// StartWithEnv is StartWith with env added to the daemon's environment
// (a later entry wins, so HOME or PATH can be replaced).
func StartWithEnv(t testing.TB, data, ws string, env []string, extra ...string) *Daemon {
	t.Helper()
	d := &Daemon{t: t, Bin: Binary(t), Data: data, Workspace: ws, ExtraEnv: env}
	if err := os.MkdirAll(d.Workspace, 0o755); err != nil {
		t.Fatal(err)
	}
	d.Args = append([]string{"serve", "--listen", "127.0.0.1:0", "--data", d.Data, "--workspace", d.Workspace}, extra...)
	d.Restart()
	t.Cleanup(d.Stop)
	return d
}

// Env is the environment the daemon and CLI run with: isolated config.
func (d *Daemon) Env() []string {
	env := append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Dir(ConfigDir(d.Workspace)), "GATEHOUSE_DEBUG=1")
	return append(env, d.ExtraEnv...)
}

// StartLogged starts cmd with its output kept; exited closes when it has
// exited. Stopping it is the caller's (Spawn stops it when the test ends).
func StartLogged(t testing.TB, cmd *exec.Cmd) (*LockedBuffer, chan struct{}) {
	t.Helper()
	log := &LockedBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	return log, exited
}

// Spawn starts cmd with its output kept, and stops it when the test
// ends (SIGTERM, then a kill); a failed test logs the output as what's.
func Spawn(t testing.TB, cmd *exec.Cmd, what string) (*LockedBuffer, chan struct{}) {
	t.Helper()
	log, exited := StartLogged(t, cmd)
	t.Cleanup(func() {
		Terminate(cmd.Process, exited, 10*time.Second)
		if t.Failed() {
			t.Logf("%s's log:\n%s", what, log.String())
		}
	})
	return log, exited
}

// Bridge is `gatehouse mcp ARGS…` as an agent starts it: in its project
// (the workspace, which the bridge tells the daemon) with the test's
// isolated config.
func (d *Daemon) Bridge(args ...string) *exec.Cmd {
	cmd := exec.Command(d.Bin, append([]string{"--data", d.Data, "mcp"}, args...)...)
	cmd.Dir = d.Workspace
	cmd.Env = d.Env()
	return cmd
}

// Restart starts the daemon process (again) and waits until it is ready.
func (d *Daemon) Restart() {
	t := d.t
	t.Helper()
	os.Remove(filepath.Join(d.Data, "addr"))
	d.log = &LockedBuffer{}
	d.cmd = exec.Command(d.Bin, append(d.Args, "--log-level", "debug")...)
	d.cmd.Env = d.Env()
	d.cmd.Stdout, d.cmd.Stderr = d.log, d.log
	if err := d.cmd.Start(); err != nil {
		t.Fatalf("start daemon: %v", err)
	}
	d.exited = make(chan struct{})
	go func(c *exec.Cmd, ch chan struct{}) { c.Wait(); close(ch) }(d.cmd, d.exited)
	d.Addr = WaitServing(t, d.Data, d.exited, 30*time.Second, "the daemon", d.log)
}

// PID is the daemon process's id.
func (d *Daemon) PID() int { return d.cmd.Process.Pid }

// Log is what the daemon printed so far.
func (d *Daemon) Log() string { return d.log.String() }

// Token reads a token file from the data dir.
func (d *Daemon) Token(name string) string {
	b, err := os.ReadFile(filepath.Join(d.Data, name+".token"))
	if err != nil {
		d.t.Fatalf("read %s token: %v", name, err)
	}
	return strings.TrimSpace(string(b))
}

// Signal sends sig and waits for exit (up to timeout). It returns the exit
// state.
func (d *Daemon) Signal(sig syscall.Signal, timeout time.Duration) *os.ProcessState {
	d.t.Helper()
	_ = d.cmd.Process.Signal(sig)
	select {
	case <-d.exited:
	case <-time.After(timeout):
		d.cmd.Process.Kill()
		<-d.exited
		d.t.Fatalf("daemon did not exit within %v after %v:\n%s", timeout, sig, d.log.String())
	}
	return d.cmd.ProcessState
}

// Kill SIGKILLs the daemon, as a crash or the OOM killer would, and
// waits for it to exit.
func (d *Daemon) Kill() {
	d.t.Helper()
	d.Signal(syscall.SIGKILL, 10*time.Second)
}

// Stop ends the daemon if it still runs.
func (d *Daemon) Stop() {
	if d.cmd == nil || d.cmd.Process == nil {
		return
	}
	select {
	case <-d.exited:
		return
	default:
	}
	Terminate(d.cmd.Process, d.exited, 10*time.Second)
	if d.t.Failed() {
		d.t.Logf("daemon log:\n%s", d.log.String())
	}
}

// CLI runs `gatehouse --data DATA args...` and returns stdout, stderr and
// the exit code.
func (d *Daemon) CLI(ctx context.Context, args ...string) (string, string, int) {
	d.t.Helper()
	return Run(ctx, d.t, d.Bin, d.Env(), append([]string{"--data", d.Data}, args...)...)
}

// Run runs the binary with args. A ctx without a deadline (a test's
// t.Context()) gets one of 60 seconds, so a command that hangs fails its
// test instead of stalling the whole run.
func Run(ctx context.Context, t testing.TB, bin string, env []string, args ...string) (string, string, int) {
	t.Helper()
	return RunInput(ctx, t, bin, env, nil, args...)
}

// RunInput is Run with stdin (none when nil); a nil env is this process's.
func RunInput(ctx context.Context, t testing.TB, bin string, env []string, stdin []byte, args ...string) (string, string, int) {
	t.Helper()
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// Request does an HTTP request to the daemon with optional headers.
func (d *Daemon) Request(method, path string, body io.Reader, hdr map[string]string) (*http.Response, string) {
	d.t.Helper()
	req, err := http.NewRequest(method, "http://"+d.Addr+path, body)
	if err != nil {
		d.t.Fatal(err)
	}
	for k, v := range hdr {
		if strings.EqualFold(k, "Host") {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		d.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}
