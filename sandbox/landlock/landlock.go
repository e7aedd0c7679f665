// Package landlock confines runs with Linux Landlock, for machines where
// bubblewrap cannot create namespaces (Ubuntu 24.04's AppArmor userns
// restriction, Docker, WSL). The daemon is never restricted: one helper
// per session layout (gatehouse __sandbox-init as the session's zygote,
// never confined itself) starts each sandbox's supervisor, which applies
// the rules to a thread of its own, waits there for the call, and forks
// the target from that thread; it stays as the run's subreaper, so one
// kill reaches the whole tree (see initproc's landlockzygote_linux.go and
// forktarget_linux.go).
//
// The network is Landlock's TCP rules (a connect to the run's proxy port
// only, or none) plus a seccomp filter that refuses every other socket:
// see sandbox/initproc and proxy.go for what holds without a namespace.
//
// Landlock only adds rights down a directory tree, so "writable
// workspace except .git/hooks" is expressed by granting each workspace
// entry separately. New files cannot be created directly in the
// workspace root, and there is no private /tmp, only a temporary
// directory exported as TMPDIR: the session's (SessionSpec.Tmp), else
// the run's own. Git must create files in .git itself, so
// .git gets that right, and with it .git/config and .git/hooks below it:
// gitguard watches those during each run (see gitdir.go).
package landlock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"github.com/gatehouse-dev/gatehouse/sandbox/launch"
	"github.com/gatehouse-dev/gatehouse/sandbox/proctree"
)

// Name is the backend's config name.
const Name = "landlock"

// Options configure the backend.
type Options struct {
	Helper string // binary implementing __sandbox-init; default os.Executable
	Home   string // the real $HOME; default os.UserHomeDir
	Logger *slog.Logger
}

// Backend runs commands under Landlock.
type Backend struct {
	opts Options
	abi  int
}

// New checks the kernel supports Landlock. The error wraps
// sandbox.ErrUnavailable.
func New(o Options) (*Backend, error) {
	abi := initproc.ABI()
	if abi < 1 {
		return nil, fmt.Errorf("%w: this kernel has no Landlock (needs Linux 5.13+ with landlock in the lsm= boot list)", sandbox.ErrUnavailable)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if err := launch.Defaults(&o.Helper, &o.Home); err != nil {
		return nil, err
	}
	return &Backend{opts: o, abi: abi}, nil
}

// ABI is the kernel's Landlock ABI version.
func (b *Backend) ABI() int { return b.abi }

// Name implements sandbox.Backend.
func (b *Backend) Name() string { return Name }

// Open implements sandbox.Backend. Each session keeps a sandbox built
// ahead of its next call (see sandbox.Warmer).
func (b *Backend) Open(ctx context.Context, s sandbox.SessionSpec) (sandbox.Session, error) {
	return sandbox.OpenWarmSession(Name, s, sandbox.PrepareOptions{Home: b.opts.Home}, &sessionWarmer{b: b})
}

// sessionWarmer is one session's sandbox.Warmer. It keeps the rules its
// last layout check computed for the build of the sandbox after that
// call, which is the same run's, moments later (as bwrap does): the
// next call checks its layout afresh, so rules gone stale meanwhile
// only cost that sandbox, never a run under them.
type sessionWarmer struct {
	b       *Backend
	zygotes launch.Zygotes

	mu     sync.Mutex
	lastP  *sandbox.Prepared
	last   initproc.Landlock
	layout string
}

// Layout implements sandbox.Warmer: the rules, which list the
// workspace's entries as they are now.
func (w *sessionWarmer) Layout(_ sandbox.SessionSpec, p *sandbox.Prepared) (string, error) {
	_, layout, err := w.rules(p, true)
	return layout, err
}

// Start implements sandbox.Warmer.
func (w *sessionWarmer) Start(_ sandbox.SessionSpec, p *sandbox.Prepared) (sandbox.Started, error) {
	rules, layout, err := w.rules(p, false)
	if err != nil {
		return nil, err
	}
	return w.start(p, rules, layout)
}

// Close implements io.Closer: the session's zygotes stop once their
// sandboxes are over.
func (w *sessionWarmer) Close() error { return w.zygotes.Close() }

// rules are p's rules and their layout: computed when fresh or for
// another run than the last one, else the last ones.
func (w *sessionWarmer) rules(p *sandbox.Prepared, fresh bool) (initproc.Landlock, string, error) {
	if err := w.b.canConfine(p); err != nil {
		return initproc.Landlock{}, "", err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !fresh && w.lastP == p {
		return w.last, w.layout, nil
	}
	rules, err := Rules(p)
	var layout string
	if err == nil {
		layout, err = layoutOf(rules)
	}
	if err != nil {
		w.lastP = nil
		return rules, "", err
	}
	w.lastP, w.last, w.layout = p, rules, layout
	return rules, layout, nil
}

func (b *Backend) canConfine(p *sandbox.Prepared) error {
	if p.Network.Mode != sandbox.NetHost && b.abi < 4 {
		return fmt.Errorf("%w: Landlock ABI %d cannot block the network; upgrade to Linux 6.7+ or use bwrap", sandbox.ErrUnavailable, b.abi)
	}
	return nil
}

// layoutOf encodes rules, which leave out the run's own home and
// temporary directories: those are fresh for every sandbox.
func layoutOf(rules initproc.Landlock) (string, error) {
	j, err := json.Marshal(rules)
	if err != nil {
		return "", fmt.Errorf("encode landlock rules: %w", err)
	}
	return string(j), nil
}

// start builds a sandbox for p under rules (its layout's): a supervisor
// the session's zygote for the layout starts (see initproc's
// landlockzygote_linux.go), which applies the rules to a thread of its
// own, waits for the call there, and forks the target from it; it stays
// as the run's subreaper. A zygote found gone is replaced once.
func (w *sessionWarmer) start(p *sandbox.Prepared, rules initproc.Landlock, layout string) (sandbox.Started, error) {
	grace := p.Limits.GraceOrDefault()
	key := layout + "\x00" + grace.String()
	for attempt := 0; ; attempt++ {
		z, err := w.zygotes.Acquire(key, func() (*launch.Zygote, error) {
			cfg := initproc.Config{Zygote: &initproc.ZygoteConfig{}, Landlock: &rules, Grace: grace}
			return launch.StartZygote([]string{w.b.opts.Helper, initproc.Entry}, cfg, key, w.b.opts.Logger)
		})
		if err != nil {
			return nil, err
		}
		st, err := w.b.spawn(p, z, func() { w.zygotes.Release(z) })
		if err == nil || attempt > 0 || !errors.Is(err, launch.ErrZygoteGone) {
			if st != nil {
				st.layout = layout
			}
			return st, err
		}
	}
}

// spawn has z start a sandbox for p, with a fresh home and temporary
// directory and the proxy's port, opened with the sandbox, off the call's
// path (a call without a proxy closes it unused). release runs once the
// sandbox is over, or at once when it could not start.
func (b *Backend) spawn(p *sandbox.Prepared, z *launch.Zygote, release func()) (*started, error) {
	fail := func(err error) (*started, error) {
		release()
		return nil, err
	}
	scratch, err := os.MkdirTemp("", "gatehouse-run-")
	if err != nil {
		return fail(fmt.Errorf("create run directory: %w", err))
	}
	home, tmp := filepath.Join(scratch, "home"), filepath.Join(scratch, "tmp")
	if err := sandbox.FreshHome(b.opts.Home, home); err != nil {
		os.RemoveAll(scratch)
		return fail(err)
	}
	if p.Tmp != "" {
		// The session's: what one command leaves there, the next finds.
		tmp = p.Tmp
	} else if err := os.Mkdir(tmp, 0o700); err != nil {
		os.RemoveAll(scratch)
		return fail(fmt.Errorf("create run directory: %w", err))
	}
	proxyLn, err := listenProxy()
	if err != nil {
		os.RemoveAll(scratch)
		return fail(err)
	}
	pend, err := launch.StartSpawned(launch.Command{
		Backend:  Name,
		Config:   initproc.Config{Supervise: true},
		Limits:   p.Limits,
		Logger:   b.opts.Logger,
		Deferred: true,
		Cleanup: func() {
			os.RemoveAll(scratch)
			release()
		},
	}, spawner{z: z, home: home, tmp: tmp})
	if err != nil {
		proxyLn.Close()
		return nil, err
	}
	return &started{pend: pend, home: home, tmp: tmp, proxyLn: proxyLn}, nil
}

// spawner is one sandbox's request to a zygote, as launch asks for it.
type spawner struct {
	z         *launch.Zygote
	home, tmp string
}

func (s spawner) Spawn(f launch.SpawnFiles) (int, error) {
	return s.z.Spawn(func(cgroup bool) ([]byte, error) {
		return initproc.EncodeLandlockSpawn(initproc.LandlockSpawn{Home: s.home, Tmp: s.tmp, Cgroup: cgroup})
	}, f)
}

type started struct {
	pend      *launch.Pending
	home, tmp string
	proxyLn   net.Listener
	layout    string
}

// Layout implements sandbox.Started.
func (s *started) Layout() string { return s.layout }

func (s *started) Discard() {
	s.proxyLn.Close()
	s.pend.Discard()
}

// Run implements sandbox.Started.
func (s *started) Run(ctx context.Context, p *sandbox.Prepared) (sandbox.Result, error) {
	nprocBase := 0
	if os.Geteuid() != 0 {
		// Without a user namespace RLIMIT_NPROC counts all of the user's
		// tasks, so the run gets its limit on top of what already runs.
		nprocBase = proctree.UserTasks(os.Getuid())
	}
	env := sandbox.RunEnv(p.Env, s.home, s.tmp)
	call := launch.Invocation{Limits: p.Limits, Stdin: p.Spec.Stdin, Stdout: p.Spec.Stdout, Stderr: p.Spec.Stderr}
	port := 0
	if p.Network.Mode == sandbox.NetProxy {
		port = s.proxyLn.Addr().(*net.TCPAddr).Port
		env = sandbox.ProxyEnv(env, s.proxyLn.Addr().String())
		call.Proxy, call.ProxyListener = p.Network.Proxy, s.proxyLn
		hosts, err := listenHostPorts(p.Network.Proxy.HostPorts())
		if err != nil {
			s.Discard()
			return sandbox.Result{Backend: Name}, err
		}
		call.HostListeners = hosts
	} else {
		s.proxyLn.Close()
	}
	call.Request = launch.NewRequest(p, env, nprocBase)
	call.Request.Net = launch.HostNamespaceNet(p.Network.Mode, port, call.HostListeners)
	return guardGit(ctx, p, &call, func() (sandbox.Result, error) { return s.pend.Exec(ctx, call) })
}

// Rules computes the Landlock rules for p, but for the run's private
// home and temporary directories, which the caller adds writable.
func Rules(p *sandbox.Prepared) (initproc.Landlock, error) {
	var l initproc.Landlock
	special := map[string]access{}
	for _, h := range append(p.Hidden, sandbox.SensitiveSystemFiles()...) {
		special[h] = denied
	}
	if err := workspaceSpecials(p, special); err != nil {
		return l, err
	}
	systemRules(special, &l)
	readOnlyRules(p.ReadOnly, special, &l)
	workspaceRules(p.Workspaces, special, &l)
	for _, r := range p.ReadWrite {
		carve(r, readWrite, special, &l)
	}
	extraRules(p, special, &l)
	return l, nil
}

// systemRules grant the system's directories read-only (carved around
// special paths), /proc and /sys, and the devices every program needs.
func systemRules(special map[string]access, l *initproc.Landlock) {
	for _, d := range sandbox.SystemDirs {
		if real, err := filepath.EvalSymlinks(d); err == nil && real == d {
			carve(d, readOnly, special, l)
		}
	}
	// Merged-/usr symlinks (/bin -> usr/bin) must resolve: the target is
	// covered by /usr, the link itself needs no rule.
	l.RODirs = append(l.RODirs, "/proc", "/sys")
	l.ListDirs = append(l.ListDirs, "/dev")
	l.RWFiles = append(l.RWFiles, "/dev/null", "/dev/zero", "/dev/full", "/dev/tty")
	l.ROFiles = append(l.ROFiles, "/dev/urandom", "/dev/random")
	l.RODirs = append(l.RODirs, "/dev/fd", "/dev/pts")
}

// readOnlyRules grant paths read-only: a toolchain's program linked from
// a PATH directory is shown alone, as a file.
func readOnlyRules(paths []string, special map[string]access, l *initproc.Landlock) {
	for _, r := range paths {
		if st, err := os.Stat(r); err == nil && !st.IsDir() {
			grant(r, readOnly, false, l)
			continue
		}
		carve(r, readOnly, special, l)
	}
}

// workspaceRules grant each workspace: its root itself read-only, so
// protected names that do not exist yet cannot be created, and its
// entries writable but for special ones.
func workspaceRules(workspaces []string, special map[string]access, l *initproc.Landlock) {
	for _, w := range workspaces {
		special[w] = readOnly
		carveRoot(w, special, l)
	}
}

// carveRoot grants a workspace: read on the root, write on each entry
// except protected and hidden ones.
func carveRoot(w string, special map[string]access, l *initproc.Landlock) {
	l.RODirs = append(l.RODirs[:len(l.RODirs):len(l.RODirs)], w)
	if hasHiddenBelow(w, special) {
		// A hidden path inside the workspace: even reading must be carved.
		l.RODirs = l.RODirs[:len(l.RODirs)-1]
		l.ListDirs = append(l.ListDirs, w)
	}
	ents, err := os.ReadDir(w)
	if err != nil {
		return
	}
	for _, e := range ents {
		p := filepath.Join(w, e.Name())
		if e.Type()&os.ModeSymlink != 0 {
			continue
		}
		a, isSpecial := special[p]
		if !isSpecial {
			a = readWrite
		}
		if e.IsDir() && hasSpecialBelow(p, special) {
			carve(p, a, special, l)
			continue
		}
		if a == readOnly && !hasHiddenBelow(w, special) {
			continue // already readable through the root rule
		}
		grant(p, a, e.IsDir(), l)
	}
}

func hasHiddenBelow(dir string, special map[string]access) bool {
	for p, a := range special {
		if a == denied && len(p) > len(dir) && p[:len(dir)+1] == dir+"/" {
			return true
		}
	}
	return false
}
