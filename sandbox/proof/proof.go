package proof

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
	"github.com/gatehouse-dev/gatehouse/sandbox/toolchain"
)

// Outcome of one check.
type Outcome string

const (
	Pass        Outcome = "PASS"
	Fail        Outcome = "FAIL"
	Unavailable Outcome = "UNAVAILABLE"
	// Limited: what must hold held, but the backend shows less than the
	// check asks for, and the reason says exactly what (a known limit
	// in sandbox/README.md).
	Limited Outcome = "LIMIT"
)

// Row is one check's result on one backend.
type Row struct {
	Backend string
	Check   string
	Outcome Outcome
	Reason  string
}

// Check names, in battery order.
const (
	CheckHomeCanary    = "home canary unreadable"
	CheckWriteOutside  = "write outside workspace fails"
	CheckHostRoot      = "host's root out of sight (bwrap's layout source)"
	CheckGitHooks      = "write .git/hooks/pre-commit fails"
	CheckUncreatable   = "create .mcp.json/.claude/.vscode fails"
	CheckNetwork       = "connect 127.0.0.1 fails (network none)"
	CheckUDP           = "UDP to 127.0.0.1 never arrives (network none)"
	CheckDNS           = "DNS query to a 127.0.0.1 resolver never arrives"
	CheckRaw           = "raw socket: ping 127.0.0.1 gets no reply"
	CheckProxyReached  = "proxy reachable through HTTP_PROXY (network proxy)"
	CheckProxyOnly     = "direct TCP, UDP, DNS fail beside the proxy"
	CheckOwnServer     = "a server the command starts answers it, off the network"
	CheckHostSocket    = "connect a host unix socket fails (control.sock, the session bus)"
	CheckEnvSecrets    = "host env secrets absent"
	CheckForkBomb      = "fork bomb contained"
	CheckSleeperKilled = "sleeper killed on time, grandchildren too"
	CheckHooksPath     = "write core.hooksPath dir (.husky) fails"
	CheckSubmodule     = "write .git/modules/x hooks, config fails"
	CheckEnvrc         = "create .envrc fails"
	CheckPreCommit     = "replace .pre-commit-config.yaml fails"
	CheckSecretFile    = "cat .env returns no secret"
	CheckAbsentName    = "missing protected name absent (ls -a, cat)"
	CheckToolchains    = "toolchains on PATH visible, read-only"
	CheckHomeSecrets   = "home secrets unreadable (~/.ssh, ~/.aws, …)"
	CheckOtherSessions = "another session's command out of reach"
)

// CheckSteering counts the kinds of file that steer agents and tools
// (protect.Steering), so the row says how many the sandbox keeps.
var CheckSteering = fmt.Sprintf("files that steer agents and tools: %d kinds kept read-only", len(protect.Steering))

// Checks lists the battery's checks in order.
var Checks = []string{
	CheckHomeCanary, CheckWriteOutside, CheckHostRoot, CheckGitHooks, CheckUncreatable,
	CheckNetwork, CheckUDP, CheckDNS, CheckRaw, CheckProxyReached, CheckProxyOnly, CheckOwnServer, CheckHostSocket,
	CheckEnvSecrets, CheckForkBomb, CheckSleeperKilled,
	CheckHooksPath, CheckSubmodule, CheckEnvrc, CheckPreCommit, CheckSteering, CheckSecretFile, CheckAbsentName,
	CheckToolchains, CheckHomeSecrets, CheckOtherSessions,
}

// Options tune where the battery works.
type Options struct {
	// Home is the real home directory the canary is planted in; default
	// os.UserHomeDir. It must be the home the backend protects.
	Home string
	// Scratch is where the test workspace is created; default os.TempDir.
	Scratch string
	// Toolchains are what the daemon shows its sandboxes (the person's
	// PATH); the toolchain row checks them.
	Toolchains toolchain.Set
	Logger     *slog.Logger
}

// ForkBombLimit is the process limit the fork bomb runs under.
const ForkBombLimit = 64

// SessionLimits are the session limits Run opens its session with (the
// container backend applies them to the whole container).
func SessionLimits() sandbox.Limits {
	l := sandbox.DefaultLimits()
	l.Processes = ForkBombLimit
	l.MemoryBytes = 512 << 20
	return l
}

// Run executes the battery against b and returns one row per check. It
// always cleans up after itself: canary, workspace, processes.
func Run(ctx context.Context, b sandbox.Backend, o Options) []Row {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Home == "" {
		o.Home, _ = os.UserHomeDir()
	}
	fail := func(reason string) []Row {
		rows := make([]Row, 0, len(Checks))
		for _, c := range Checks {
			rows = append(rows, Row{Backend: b.Name(), Check: c, Outcome: Fail, Reason: reason})
		}
		return rows
	}
	root, err := os.MkdirTemp(o.Scratch, "gatehouse-doctor-")
	if err != nil {
		return fail(fmt.Sprintf("cannot create a scratch directory: %v", err))
	}
	defer os.RemoveAll(root)
	ws := filepath.Join(root, "ws")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{ws, outside, filepath.Join(ws, ".git", "hooks")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fail(fmt.Sprintf("cannot create the test workspace: %v", err))
		}
	}
	if err := os.WriteFile(filepath.Join(ws, ".git", "config"), []byte(gitConfig), 0o644); err != nil {
		return fail(fmt.Sprintf("cannot create the test workspace: %v", err))
	}
	secret := "gatehouse-workspace-secret-" + randHex(16)
	if err := plantWorkspace(ws, secret); err != nil {
		return fail(fmt.Sprintf("cannot create the test workspace: %v", err))
	}
	sess, err := b.Open(ctx, sandbox.SessionSpec{ID: "doctor-" + randHex(4), Workspaces: []string{ws}, Limits: SessionLimits(), ReadOnly: o.Toolchains.ReadOnly})
	if err != nil {
		return fail(fmt.Sprintf("cannot open a session: %v", err))
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = sess.Close(cctx)
	}()
	e := &env{sess: sess, backend: b, root: root, ws: ws, outside: outside, home: o.Home, secret: secret, toolchains: o.Toolchains, log: o.Logger}
	checks := []func(context.Context, *env) (Outcome, string){
		checkHomeCanary, checkWriteOutside, checkHostRoot, checkGitHooks, checkUncreatable,
		checkNetwork, checkUDP, checkDNS, checkRaw, checkProxyReached, checkProxyOnly, checkOwnServer, checkHostSocket,
		checkEnvSecrets, checkForkBomb, checkSleeper,
		checkHooksPath, checkSubmodule, checkEnvrc, checkPreCommit, checkSteering, checkSecretFile, checkAbsentName,
		checkToolchains, checkHomeSecrets, checkOtherSessions,
	}
	rows := make([]Row, 0, len(checks))
	for i, c := range checks {
		out, reason := c(ctx, e)
		rows = append(rows, Row{Backend: b.Name(), Check: Checks[i], Outcome: out, Reason: reason})
	}
	return rows
}

// gitConfig is the test repository's config: husky's hooks path.
const gitConfig = "[core]\n\trepositoryformatversion = 0\n\thooksPath = .husky\n"

type env struct {
	sess sandbox.Session
	// backend and root (the scratch directory) open a session of a
	// check's own.
	backend    sandbox.Backend
	root       string
	ws         string
	outside    string
	home       string
	secret     string // the canary in the workspace's .env files
	toolchains toolchain.Set
	log        *slog.Logger
}

// run executes argv in the workspace with a short default wall limit.
func (e *env) run(ctx context.Context, argv []string, mod func(*sandbox.Spec)) (sandbox.Result, error) {
	return e.runIn(ctx, e.sess, argv, mod)
}

// runIn is run in another session of the same workspace.
func (e *env) runIn(ctx context.Context, sess sandbox.Session, argv []string, mod func(*sandbox.Spec)) (sandbox.Result, error) {
	lim := sandbox.DefaultLimits()
	lim.Wall = 30 * time.Second
	lim.Processes = ForkBombLimit
	lim.MemoryBytes = 512 << 20
	spec := sandbox.Spec{
		Argv:   argv,
		Env:    []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C"},
		Limits: lim,
	}
	if mod != nil {
		mod(&spec)
	}
	return sess.Run(ctx, spec)
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
