// Package unconfined is the "none" backend for people who insist: the
// process runs with the user's full rights. It still gets the env
// allowlist, limits, its own supervised process tree and the kill, and
// every run is logged as UNCONFINED. It is never chosen automatically.
package unconfined

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"github.com/gatehouse-dev/gatehouse/sandbox/launch"
	"github.com/gatehouse-dev/gatehouse/sandbox/proctree"
)

// Name is the backend's config name.
const Name = "none"

// Options configure the backend.
type Options struct {
	Helper string // binary implementing __sandbox-init; default os.Executable
	Logger *slog.Logger
}

// Backend runs commands without confinement.
type Backend struct{ opts Options }

// New returns the unconfined backend.
func New(o Options) (*Backend, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Helper == "" {
		h, err := launch.DefaultHelper()
		if err != nil {
			return nil, err
		}
		o.Helper = h
	}
	return &Backend{opts: o}, nil
}

// Name implements sandbox.Backend.
func (b *Backend) Name() string { return Name }

// Open implements sandbox.Backend.
func (b *Backend) Open(ctx context.Context, s sandbox.SessionSpec) (sandbox.Session, error) {
	return sandbox.OpenProcessSession(Name, s, sandbox.PrepareOptions{}, b.run)
}

// run runs one validated spec with no confinement at all.
func (b *Backend) run(ctx context.Context, ss sandbox.SessionSpec, p *sandbox.Prepared) (sandbox.Result, error) {
	b.opts.Logger.Warn("sandbox: UNCONFINED run: the command has your full rights",
		"session", ss.ID, "program", p.Path)
	if p.Network.Mode != sandbox.NetHost {
		b.opts.Logger.Warn("sandbox: UNCONFINED run cannot restrict the network", "session", ss.ID)
	}
	nprocBase := 0
	if os.Geteuid() != 0 {
		nprocBase = proctree.UserTasks(os.Getuid())
	}
	home, _ := os.UserHomeDir()
	env := sandbox.WithDefaultEnv(p.Env, "PATH", sandbox.DefaultPath)
	if home != "" {
		env = sandbox.WithDefaultEnv(env, "HOME", home)
	}
	res, err := launch.RunPrepared(ctx, launch.Command{
		Backend: Name,
		Helper:  b.opts.Helper,
		Config: initproc.Config{
			Supervise: true,
			Grace:     p.Limits.GraceOrDefault(),
			Rlimits:   launch.Rlimits(p.Limits, nprocBase),
			Path:      p.Path,
			Argv:      p.Argv,
		},
		Env:    env,
		Logger: b.opts.Logger,
	}, p)
	if err != nil {
		return res, fmt.Errorf("unconfined run: %w", err)
	}
	return res, nil
}
