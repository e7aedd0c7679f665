package call

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/buildcache"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/backend/workspace"
	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/toolchain"
)

// RunEnv is what every command's environment and sandbox are built
// from: the person's toolchains and the workspace's build cache.
type RunEnv struct {
	// Toolchains give the run's PATH and the directories shown read-only.
	Toolchains toolchain.Set
	// Cache keeps build caches per workspace; nil keeps none.
	Cache *buildcache.Cache
	// ConfigPath is the config file a person edits to add to the PATH.
	ConfigPath string
}

// baseEnv is a run's environment before secrets: no host variable
// reaches it but these.
var baseEnv = []string{"LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1", "GIT_TERMINAL_PROMPT=0",
	// npm's and pip's checks for a newer version of themselves: the
	// sandbox cannot update the host's tools, and each check would raise
	// a network card for every command (npm waits for the answer, even
	// with --offline).
	"npm_config_update_notifier=false", "PIP_DISABLE_PIP_VERSION_CHECK=1"}

// runPath is the PATH commands are looked up in, inside and out.
func (r *Runner) runPath() string {
	if e := r.deps.RunEnv; e != nil && len(e.Toolchains.Path) > 0 {
		return e.Toolchains.PathString()
	}
	return sandbox.DefaultPath
}

// Lookup finds the program argv0 names as a command run from cwd would:
// on the sandbox's PATH, or relative to cwd. Its error tells the agent
// how to make a missing program visible.
func (r *Runner) Lookup(argv0, cwd string) (string, error) {
	bin, err := policy.ResolveBinary(argv0, r.runPath(), cwd)
	if err != nil {
		return "", r.notFound(argv0)
	}
	return bin, nil
}

// notFound tells the agent, and through it the person, how to make a
// missing program visible.
func (r *Runner) notFound(argv0 string) error {
	where := "the config file"
	if e := r.deps.RunEnv; e != nil && e.ConfigPath != "" {
		where = e.ConfigPath
	}
	return Errorf("%s: command not found on the sandbox's PATH (%s); if it is installed, add its directory to [sandbox] path in %s and restart Gatehouse",
		argv0, r.runPath(), where)
}

// runEnv is the environment of a run in st's session.
func (r *Runner) runEnv(st *session.State) []string {
	env := append([]string{"PATH=" + r.runPath()}, baseEnv...)
	env = append(env, sandbox.GitCoherentEnv...)
	e := r.deps.RunEnv
	if e == nil {
		return env
	}
	env = append(env, e.Toolchains.Env...)
	if root := r.cacheRoot(st); root != "" {
		env = append(env, e.Cache.Env(root)...)
	}
	return env
}

// cacheRoot is the session's build cache root ("" for none): its first
// workspace's.
func (r *Runner) cacheRoot(st *session.State) string {
	e := r.deps.RunEnv
	if e == nil || e.Cache == nil || len(st.Workspaces) == 0 {
		return ""
	}
	root, err := e.Cache.Root(st.Workspaces[0])
	if err != nil {
		r.deps.Logger.Warn("build cache unavailable; this session's builds start cold", "err", err)
		return ""
	}
	return root
}

// sessionSpec adds the toolchains, host caches and build cache to the
// session's sandbox.
func (r *Runner) sessionSpec(st *session.State, ss sandbox.SessionSpec) sandbox.SessionSpec {
	e := r.deps.RunEnv
	if e == nil {
		return ss
	}
	ss.ReadOnly = append(ss.ReadOnly, e.Toolchains.ReadOnly...)
	if e.Cache != nil {
		ss.ReadOnly = append(ss.ReadOnly, e.Cache.ReadOnly()...)
		ss.Cache = r.cacheRoot(st)
	}
	return ss
}

// beginRun readies the session's build cache for a run (making room if
// its disk is full) and returns what to call once the run is over.
func (r *Runner) beginRun(ctx context.Context, c *InFlight) (end func(), err error) {
	root := r.cacheRoot(c.State)
	if root == "" {
		return func() {}, nil
	}
	end, err = r.deps.RunEnv.Cache.Begin(ctx, root, c.readOnly)
	if err != nil {
		return nil, Errorf("%v", err)
	}
	return end, nil
}

// runNotes are what the sandbox saw that the command's own messages do
// not say: a protected path it changed, and a full disk behind a "no
// space" failure.
func runNotes(res sandbox.Result, cacheDir string) []string {
	var notes []string
	for _, v := range res.Violations {
		notes = append(notes, v.Detail)
	}
	if len(res.Left) > 0 && !res.Killed {
		// Without Gatehouse they would still run: the agent must not
		// take a server it started with `&` for one that is up.
		notes = append(notes, fmt.Sprintf("the command left %s running in the background when it exited, and Gatehouse ended it with the command: each command runs in a sandbox of its own, which ends when the command does, so nothing it starts outlives it, and a later command could not reach a server it started; to keep one running, run it as a command of its own that does not exit", strings.Join(res.Left, ", ")))
	}
	noSpace := []byte("no space left on device")
	if res.ExitCode != 0 && cacheDir != "" && (bytes.Contains(bytes.ToLower(res.Stderr), noSpace) || bytes.Contains(bytes.ToLower(res.Stdout), noSpace)) {
		notes = append(notes, fmt.Sprintf("the command ran out of disk space; if it was writing its build cache (%s), the next command clears the cache's oldest entries first, or run `gatehouse cache clear`", cacheDir))
	}
	return notes
}

// cacheDir names the cache for messages ("" without one).
func (r *Runner) cacheDir() string {
	if e := r.deps.RunEnv; e != nil && e.Cache != nil {
		return e.Cache.Dir()
	}
	return ""
}

// home is the person's home directory ("" when unknown).
func (r *Runner) home() string {
	h, _ := os.UserHomeDir()
	return h
}

// hiddenFromCommands: the sandbox shows commands the workspaces, the
// toolchains and the system, never the rest of the home directory or
// Gatehouse's data.
func (r *Runner) hiddenFromCommands(p string) bool {
	if workspace.InsideAny(p, r.deps.Hidden) {
		return true
	}
	home := r.home()
	if home == "" || !workspace.InsideAny(p, []string{home}) {
		return false
	}
	return r.deps.RunEnv == nil || !workspace.InsideAny(p, r.deps.RunEnv.Toolchains.ReadOnly)
}
