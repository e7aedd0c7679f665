package seatbelt

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"github.com/gatehouse-dev/gatehouse/sandbox/launch"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// Name is the backend's config name.
const Name = "seatbelt"

// Options configure the backend.
type Options struct {
	SandboxExec string // default /usr/bin/sandbox-exec
	Helper      string // binary implementing __sandbox-init; default os.Executable
	Home        string // the real $HOME; default os.UserHomeDir
	Logger      *slog.Logger
}

// Backend runs commands under sandbox-exec.
type Backend struct{ opts Options }

// New finds sandbox-exec; outside macOS it is unavailable.
func New(o Options) (*Backend, error) {
	if runtime.GOOS != "darwin" {
		return nil, fmt.Errorf("%w: seatbelt exists only on macOS", sandbox.ErrUnavailable)
	}
	if o.SandboxExec == "" {
		o.SandboxExec = "/usr/bin/sandbox-exec"
	}
	if _, err := exec.LookPath(o.SandboxExec); err != nil {
		return nil, fmt.Errorf("%w: %s not found", sandbox.ErrUnavailable, o.SandboxExec)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if err := launch.Defaults(&o.Helper, &o.Home); err != nil {
		return nil, err
	}
	return &Backend{opts: o}, nil
}

// Name implements sandbox.Backend.
func (b *Backend) Name() string { return Name }

// Open implements sandbox.Backend.
func (b *Backend) Open(ctx context.Context, s sandbox.SessionSpec) (sandbox.Session, error) {
	return sandbox.OpenProcessSession(Name, s, sandbox.PrepareOptions{Home: b.opts.Home}, b.run)
}

// run confines and runs one validated spec.
func (b *Backend) run(ctx context.Context, ss sandbox.SessionSpec, p *sandbox.Prepared) (sandbox.Result, error) {
	scratch, err := os.MkdirTemp("", "gatehouse-run-")
	if err != nil {
		return sandbox.Result{Backend: Name}, fmt.Errorf("create run directory: %w", err)
	}
	defer os.RemoveAll(scratch)
	if real, err := filepath.EvalSymlinks(scratch); err == nil {
		scratch = real // /tmp is /private/tmp on macOS; profiles match real paths
	}
	home, tmp := filepath.Join(scratch, "home"), filepath.Join(scratch, "tmp")
	if err := sandbox.FreshHome(b.opts.Home, home); err != nil {
		return sandbox.Result{Backend: Name}, err
	}
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return sandbox.Result{Backend: Name}, fmt.Errorf("create run directory: %w", err)
	}
	var ws []protect.Workspace
	for _, root := range p.Workspaces {
		w, err := protect.Scan(root, p.Expose)
		if err != nil {
			return sandbox.Result{Backend: Name}, fmt.Errorf("cannot tell what to protect in %s, so nothing runs: %w", root, err)
		}
		ws = append(ws, w)
	}
	env := sandbox.RunEnv(p.Env, home, tmp)
	var proxyLn net.Listener
	port := 0
	if p.Network.Mode == sandbox.NetProxy {
		if proxyLn, err = net.Listen("tcp4", "127.0.0.1:0"); err != nil {
			return sandbox.Result{Backend: Name}, fmt.Errorf("open the run's proxy port: %w", err)
		}
		port = proxyLn.Addr().(*net.TCPAddr).Port
		env = sandbox.ProxyEnv(env, proxyLn.Addr().String())
	}
	argv := append([]string{b.opts.SandboxExec, "-p", Profile(p, home, tmp, ws, port), "--", p.Path}, p.Argv[1:]...)
	return launch.RunPrepared(ctx, launch.Command{
		Proxy:         p.Network.Proxy,
		ProxyListener: proxyLn,
		Backend:       Name,
		Helper:        b.opts.Helper,
		Config: initproc.Config{
			Rlimits: launch.Rlimits(p.Limits, 0),
			Path:    b.opts.SandboxExec,
			Argv:    argv,
		},
		Env:    env,
		Logger: b.opts.Logger,
	}, p)
}
