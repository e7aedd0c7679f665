package bwrap

import (
	"context"
	"debug/elf"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"github.com/gatehouse-dev/gatehouse/sandbox/launch"
)

// Name is the backend's config name.
const Name = "bwrap"

// Options configure the backend.
type Options struct {
	Bwrap  string // bwrap binary; default: found on PATH
	Helper string // binary implementing __sandbox-init; default os.Executable
	Home   string // the real $HOME; default os.UserHomeDir
	// Shown holds the files a sandbox shows in place of the person's
	// (their git configs without credentials): a directory of the
	// daemon's own, made 0700 when first needed; "" for a new temporary
	// one.
	Shown  string
	Logger *slog.Logger
}

// Backend runs commands under bubblewrap.
type Backend struct {
	opts          Options
	log           *slog.Logger
	dynamicHelper bool

	copiesOnce sync.Once
	copiesDir  string // where homeView writes (Options.Shown), made on first use
	copiesErr  error
}

// homeView is what the sandbox's home shows of git: the person's git
// configs that hold credentials, each with a copy without them to show
// in its place, and the files their config includes or names
// (sandbox.HomeGitView).
func (b *Backend) homeView() (copies map[string]string, extras []string, err error) {
	b.copiesOnce.Do(func() {
		// Their content is the person's config less its credentials: a
		// directory of this process's own (0700) keeps it from being
		// swapped.
		if b.copiesDir = b.opts.Shown; b.copiesDir == "" {
			b.copiesDir, b.copiesErr = os.MkdirTemp("", "gatehouse-home-")
		}
	})
	if b.copiesErr != nil {
		return nil, sandbox.HomeGitExtras(b.opts.Home), b.copiesErr
	}
	return sandbox.HomeGitView(b.opts.Home, b.copiesDir)
}

// New finds bwrap and checks that it can create its namespaces here
// (it cannot under Ubuntu 24.04's AppArmor userns restriction, in most
// containers, or on WSL1). The error wraps sandbox.ErrUnavailable.
func New(ctx context.Context, o Options) (*Backend, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Bwrap == "" {
		p, err := exec.LookPath("bwrap")
		if err != nil {
			return nil, fmt.Errorf("%w: bubblewrap is not installed (apt install bubblewrap)", sandbox.ErrUnavailable)
		}
		o.Bwrap = p
	}
	if err := launch.Defaults(&o.Helper, &o.Home); err != nil {
		return nil, err
	}
	if err := probe(ctx, o.Bwrap); err != nil {
		return nil, err
	}
	helper, err := filepath.Abs(o.Helper)
	if err == nil {
		helper, err = filepath.EvalSymlinks(helper)
	}
	if err != nil {
		return nil, fmt.Errorf("find the sandbox helper: %w", err)
	}
	o.Helper = helper
	dyn, err := dynamic(o.Helper)
	if err != nil {
		return nil, fmt.Errorf("read the sandbox helper %s: %w", o.Helper, err)
	}
	return &Backend{opts: o, log: o.Logger, dynamicHelper: dyn}, nil
}

var probeCache sync.Map // bwrap path -> error

func probe(ctx context.Context, bin string) error {
	if v, ok := probeCache.Load(bin); ok {
		if v == nil {
			return nil
		}
		return v.(error)
	}
	out, err := exec.CommandContext(ctx, bin, "--unshare-all", "--die-with-parent",
		"--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--", "/bin/sh", "-c", "exit 0").CombinedOutput()
	if err != nil {
		err = fmt.Errorf("%w: bubblewrap cannot create namespaces here (%s); use the landlock backend or allow unprivileged user namespaces",
			sandbox.ErrUnavailable, firstLine(out, err))
		probeCache.Store(bin, err)
		return err
	}
	probeCache.Store(bin, nil)
	return nil
}

// helperPath is the helper binary at host as bwrap finds it, inside the
// host's root. host has its links resolved: bwrap would resolve a link
// against the sandbox's root, not the host's.
func helperPath(host string) string { return initproc.HostRoot + host }

// dynamic reports whether the binary at path needs a program
// interpreter (the dynamic loader) to start.
func dynamic(path string) (bool, error) {
	f, err := elf.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return true, nil
		}
	}
	return false, nil
}

func firstLine(out []byte, err error) string {
	for i, c := range out {
		if c == '\n' {
			out = out[:i]
			break
		}
	}
	if len(out) > 0 {
		return string(out)
	}
	return err.Error()
}

// CanStage implements sandbox.Stager: the helper mounts overlays in the
// run's own mount namespace.
func (b *Backend) CanStage() bool { return true }

// Name implements sandbox.Backend.
func (b *Backend) Name() string { return Name }

// Open implements sandbox.Backend. Each session keeps sandboxes built
// ahead of its calls, from a zygote of its layout (see zygote.go).
func (b *Backend) Open(ctx context.Context, s sandbox.SessionSpec) (sandbox.Session, error) {
	return sandbox.OpenWarmSession(Name, s, sandbox.PrepareOptions{Home: b.opts.Home}, newSessionWarmer(b))
}

// zygoteSpec is what a zygote for p is started with, and the layout
// that names it.
type zygoteSpec struct {
	args   []string // bwrap's own arguments
	cfg    initproc.Config
	layout string
}

func (b *Backend) zygoteSpec(p *sandbox.Prepared) zygoteSpec {
	l := Layout{Home: b.opts.Home, Hidden: slices.Concat(p.Hidden, sandbox.SensitiveSystemFiles(), sandbox.HomeCredentials(b.opts.Home)), DynamicHelper: b.dynamicHelper}
	if l.Home != "" {
		copies, extras, err := b.homeView()
		if err != nil {
			// Hidden whole rather than shown with their credentials.
			b.log.Warn("copy the git configs without their credentials; hiding them", "err", err)
			l.Hidden = append(l.Hidden, sandbox.HomeGitConfigs(l.Home)...)
		}
		l.HomeCopies, l.HomeExtras = copies, extras
	}
	var fresh []string
	if p.Tmp == "" {
		fresh = append(fresh, "/tmp")
	}
	if l.Home != "" {
		fresh = append(fresh, l.Home)
	}
	spec := zygoteSpec{
		args: Args(p, l),
		cfg:  initproc.Config{Zygote: &initproc.ZygoteConfig{Fresh: fresh}, Layout: Mounts(p, l)},
	}
	enc, _ := spec.cfg.Encode()
	net := "own"
	if p.Network.Mode == sandbox.NetHost {
		net = "host"
	}
	spec.layout = strings.Join(append(spec.args, enc, net), "\x00")
	return spec
}

// Layout is what Args needs beyond the prepared spec.
type Layout struct {
	Home   string   // real home path; a fresh tmpfs is mounted there
	Hidden []string // paths to cover
	// HomeCopies are the home's git configs that hold credentials, each
	// with the copy shown in its place (sandbox.RedactedHomeConfigs).
	HomeCopies map[string]string
	// HomeExtras are the files in the home the git config includes or
	// names (sandbox.HomeGitExtras), shown beside HomeAllowlist.
	HomeExtras []string
	// DynamicHelper says the helper needs the system's loader and
	// libraries when bwrap execs it (the gatehouse binary itself, not
	// the static gatehouse-sandbox-init), so bwrap binds the system
	// directories before then.
	DynamicHelper bool
}

// devices are bound into the sandbox's /dev. bwrap's own --dev would
// need a second user namespace (to mount devpts), which would leave the
// zygote unable to clone the layout; each run's first process mounts a
// /dev/pts of its own (initproc.CallSetup).
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

// Args builds bwrap's own arguments for a zygote of p: the namespaces,
// the host's root at initproc.HostRoot for the helper to clone the
// layout from, and the skeleton nothing in the layout covers (/proc,
// /dev, the merged-/usr links). Every other mount is the helper's (see
// Mounts): bwrap reads the whole mount table again after each bind it
// makes. The zygote keeps the host's network; each run gets a network
// namespace of its own from it, unless the run shares the host's.
func Args(p *sandbox.Prepared, l Layout) []string {
	// The capabilities are the zygote's, inside the new user namespace;
	// each run gets its own user namespace from it.
	a := []string{"--unshare-all", "--share-net", "--die-with-parent", "--new-session", "--cap-add", "ALL"}
	// A dev-bind adds only nosuid, so the clones keep the host's own
	// flags until the helper adds the layout's.
	a = append(a, "--dev-bind", "/", initproc.HostRoot)
	links := systemLinks()
	for _, d := range sandbox.SystemDirs {
		if target, ok := links[d]; ok {
			a = append(a, "--symlink", target, d) // merged /usr: /bin -> usr/bin
		} else if l.DynamicHelper {
			a = append(a, "--ro-bind-try", d, d)
		}
	}
	a = append(a, "--proc", "/proc", "--tmpfs", "/dev",
		"--symlink", "/proc/self/fd", "/dev/fd",
		"--symlink", "/proc/self/fd/0", "/dev/stdin",
		"--symlink", "/proc/self/fd/1", "/dev/stdout",
		"--symlink", "/proc/self/fd/2", "/dev/stderr",
		"--dir", "/dev/pts", "--symlink", "pts/ptmx", "/dev/ptmx",
		"--tmpfs", "/dev/shm")
	return a
}

// systemLinks are the system directories that are links on this host
// (merged /usr: /bin -> usr/bin), with their targets. Read once: every
// call's layout needs them, and a distribution does not change its
// layout under a running daemon.
var systemLinks = sync.OnceValue(func() map[string]string {
	links := map[string]string{}
	for _, d := range sandbox.SystemDirs {
		if target, err := os.Readlink(d); err == nil {
			links[d] = target
		}
	}
	return links
})

// Mounts is the layout the helper makes, in order: later mounts cover
// earlier ones, so the workspace comes after the fresh $HOME it may sit
// in, and hidden paths come last. Protected paths are mounted later by
// the helper, when the call arrives.
func Mounts(p *sandbox.Prepared, l Layout) []initproc.LayoutMount {
	var ms []initproc.LayoutMount
	add := func(k initproc.MountKind, src, dst string, try bool) {
		ms = append(ms, initproc.LayoutMount{Kind: k, Src: src, Dst: dst, Try: try})
	}
	links := systemLinks()
	for _, d := range sandbox.SystemDirs {
		if _, ok := links[d]; !ok && !l.DynamicHelper {
			add(initproc.MountROBind, d, d, true)
		}
	}
	if p.Network.Mode == sandbox.NetHost {
		// /etc/resolv.conf often points here.
		add(initproc.MountROBind, "/run/systemd/resolve", "/run/systemd/resolve", true)
	}
	for _, d := range devices {
		add(initproc.MountDevBind, d, d, true)
	}
	if p.Tmp != "" {
		// The session's: what one command leaves there, the next finds.
		add(initproc.MountBind, p.Tmp, "/tmp", false)
	} else {
		add(initproc.MountTmpfs, "", "/tmp", false)
	}
	if l.Home != "" {
		add(initproc.MountTmpfs, "", l.Home, false)
		for _, f := range sandbox.HomeAllowlist {
			hp := filepath.Join(l.Home, f)
			add(initproc.MountROBind, hp, hp, true)
		}
		for _, hp := range l.HomeExtras {
			add(initproc.MountROBind, hp, hp, true)
		}
		for _, hp := range slices.Sorted(maps.Keys(l.HomeCopies)) {
			add(initproc.MountROBind, l.HomeCopies[hp], hp, false)
		}
	}
	for _, r := range p.ReadOnly {
		add(initproc.MountROBind, r, r, false)
	}
	for _, w := range p.Workspaces {
		add(initproc.MountBind, w, w, false)
	}
	for _, r := range p.ReadWrite {
		add(initproc.MountBind, r, r, false)
	}
	// The helper covers an entry itself, not a link's target as bwrap's
	// binds did, so links are resolved here: /etc/ssh's host keys may be
	// links.
	hidden := make([]string, len(l.Hidden))
	for i, h := range l.Hidden {
		if real, err := filepath.EvalSymlinks(h); err == nil {
			h = real
		}
		hidden[i] = h
	}
	for _, h := range hidden {
		st, err := os.Lstat(h)
		switch {
		case err != nil:
			continue // nothing there to see
		case st.IsDir():
			add(initproc.MountTmpfs, "", h, false)
			ms = append(ms, cacheMounts(p, hidden, h)...)
			add(initproc.MountRemountRO, "", h, false)
		default:
			add(initproc.MountHideFile, "", h, false)
		}
	}
	ms = append(ms, cacheMounts(p, hidden, "")...)
	if p.StageRoot != "" {
		// Every run of the session gets it, and covers it before exec
		// (see stageRequest), as it does the workspaces' lower binds: a
		// staged run's overlay takes those, which have nothing mounted
		// below them (an overlay refuses a layer with mounts below it
		// that the run's user namespace cannot unmount).
		add(initproc.MountBind, p.StageRoot, sandbox.StageMountPoint, false)
		for i, w := range p.Workspaces {
			add(initproc.MountROBind, w, sandbox.LowerOf(i), false)
		}
	}
	return ms
}
