package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/buildcache"
	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/config"
	"github.com/gatehouse-dev/gatehouse/sandbox/toolchain"
)

// commandEnv works out what commands run with: the person's toolchains on
// their PATH (plus [sandbox] path), shown read-only, and a build cache
// per workspace in the data dir. What it skips it says once, here.
func commandEnv(ctx context.Context, g *Globals, sb config.Sandbox, dataDir string, workspaces []string, log *slog.Logger) (*call.RunEnv, error) {
	tc, err := findToolchains(g, sb, log)
	if err != nil {
		return nil, err
	}
	home, _ := os.UserHomeDir()
	e := &call.RunEnv{Toolchains: tc, ConfigPath: configPath(g)}
	if sb.CacheMiB < 0 {
		return e, nil
	}
	host := buildcache.FindHost(ctx, lookIn("go", tc.Path), home, os.Getenv)
	c, err := buildcache.Open(buildcache.Options{
		Dir: filepath.Join(dataDir, "cache"), LimitBytes: sb.CacheMiB << 20, Host: host, Logger: log,
	})
	if err != nil {
		// Commands still run, with caches that last one call.
		log.Warn("no persistent build cache", "err", err)
		fmt.Fprintf(g.Stderr, "gatehouse: builds will not be cached between commands: %v\n", err)
		return e, nil
	}
	c.Seed(workspaces)
	e.Cache = c
	return e, nil
}

// findToolchains reads the person's PATH and the [sandbox] settings, and
// says what it skips.
func findToolchains(g *Globals, sb config.Sandbox, log *slog.Logger) (toolchain.Set, error) {
	home, _ := os.UserHomeDir()
	tc, err := toolchain.Find(toolchain.Options{
		Path: filepath.SplitList(os.Getenv("PATH")), Extra: sb.Path, ReadOnly: sb.ReadOnly, Home: home,
		Hide: ownPaths(),
	})
	if err != nil {
		return tc, userErrorf(err, "%v (in %s)", err, configPath(g))
	}
	// Said once, to the person: the log of a daemon or a run is this
	// same stream.
	for _, n := range tc.Notes {
		fmt.Fprintf(g.Stderr, "gatehouse: %s\n", n)
	}
	for _, n := range tc.Skipped {
		log.Info("sandbox toolchains", "note", n)
	}
	if len(tc.ReadOnly) > 0 {
		log.Info("sandboxes see these toolchains read-only", "dirs", strings.Join(tc.ReadOnly, ", "))
	}
	// Whether or not a Node is on the PATH: a project may bring its own.
	quietNode(&tc, log)
	return tc, nil
}

// quietNode has every Node a command starts drop the warning the
// sandbox's proxy setting makes it print (toolchain.NodeQuiet), from a
// script in the person's cache directory shown read-only. Without it a
// command prints one more line, so a failure is only logged.
func quietNode(tc *toolchain.Set, log *slog.Logger) {
	base, err := os.UserCacheDir()
	if err != nil {
		log.Info("Node in sandboxes will print its proxy warning", "err", err)
		return
	}
	path, env, err := toolchain.NodeQuiet(filepath.Join(base, "gatehouse", "node"))
	if err != nil {
		log.Warn("Node in sandboxes will print its proxy warning", "err", err)
		return
	}
	tc.ReadOnly = append(tc.ReadOnly, path)
	tc.Env = append(tc.Env, env)
}

// gatehouseModule is this project's module path: a go.mod naming it
// marks a Gatehouse checkout.
const gatehouseModule = "module github.com/gatehouse-dev/gatehouse"

// ownPaths are what no sandbox is shown as a toolchain: this program and
// its siblings, and the checkout they were built in (its sources, its
// .cache with the Makefile's Node, its bin/), whichever PATH entry or
// link leads there.
func ownPaths() []string {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	dir := filepath.Dir(exe)
	out := []string{exe}
	for _, name := range []string{lightProgram, desktopProgram, "gatehouse-sandbox-init"} {
		out = append(out, filepath.Join(dir, name))
	}
	if filepath.Base(dir) == "bin" {
		root := filepath.Dir(dir)
		if b, err := os.ReadFile(filepath.Join(root, "go.mod")); err == nil {
			for line := range strings.Lines(string(b)) {
				if strings.HasPrefix(line, "module ") {
					if strings.TrimSpace(line) == gatehouseModule {
						out = append(out, root)
					}
					break
				}
			}
		}
	}
	return out
}

// configPath is the config file in effect, for messages.
func configPath(g *Globals) string {
	if p, err := configFile(g); err == nil {
		return p
	}
	return "the Gatehouse config file"
}

// lookIn finds an executable name in dirs, "" when none has it.
func lookIn(name string, dirs []string) string {
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// nodeOptionsOf is the NODE_OPTIONS the toolchains' settings give, "" for
// none.
func nodeOptionsOf(env []string) string {
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "NODE_OPTIONS="); ok {
			return v
		}
	}
	return ""
}
