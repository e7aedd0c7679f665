package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// DefaultPath is the PATH used to find argv[0] when Spec.Env has none.
const DefaultPath = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"

// Prepared is a Spec after validation: every path absolute, cleaned and
// with symlinks resolved, argv[0] resolved to the program that will run.
type Prepared struct {
	Path       string // program to execute (host path, or argv[0] untouched when not looked up)
	Argv       []string
	Dir        string
	Env        []string
	Workspaces []string
	ReadOnly   []string
	ReadWrite  []string
	Hidden     []string
	// Cache is the session's writable cache dir ("" for none); GitDirs are
	// its linked worktree's git dirs, also in ReadWrite.
	Cache   string
	GitDirs []string
	Network Network
	Limits  Limits
	Spec    Spec // the original, for Stdin/Stdout/Stderr

	// Expose is the session's and the run's ExposeSecrets together.
	Expose protect.Exposure
	// StageRoot is the session's staging directory ("" for none), and
	// Stage the run's request to be staged in it (nil for a direct run).
	StageRoot string
	Stage     *Stage
	// Tmp is the session's temporary directory (SessionSpec.Tmp), "" for
	// a fresh one per run.
	Tmp string
}

// PrepareOptions tune validation for a backend.
type PrepareOptions struct {
	// SkipLookup leaves argv[0] to be resolved inside the sandbox (the
	// container backend, whose programs live in an image).
	SkipLookup bool
	// Home is the real home directory, which may not be a workspace.
	Home string
}

// systemRoots may never be shared read-write, nor anything beneath them.
var systemRoots = []string{
	"/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32",
	"/proc", "/run", "/sbin", "/sys", "/usr", "/System", "/Library", "/private/etc",
}

// systemExact may not be a workspace themselves (shared parents).
var systemExact = []string{
	"/", "/home", "/Users", "/var", "/tmp", "/opt", "/mnt", "/media", "/srv",
	"/root", "/private", "/private/var", "/private/tmp", "/Applications", "/nix",
}

// IsSystemPath reports whether p (absolute, cleaned) is a system directory
// or lies beneath one.
func IsSystemPath(p string) bool {
	for _, e := range systemExact {
		if p == e {
			return true
		}
	}
	for _, r := range systemRoots {
		if WithinClean(p, r) {
			return true
		}
	}
	return false
}

// WithinClean reports whether p is base or beneath it, both already clean
// and absolute (Within cleans them first).
func WithinClean(p, base string) bool {
	if base == "/" {
		return true
	}
	// Without base+"/", which would allocate on every call of a hot path.
	return p == base || len(p) > len(base) && p[len(base)] == '/' && strings.HasPrefix(p, base)
}

// Within reports whether path p is base or lies beneath it.
func Within(p, base string) bool { return WithinClean(filepath.Clean(p), filepath.Clean(base)) }

func hasNUL(s string) bool { return strings.IndexByte(s, 0) >= 0 }

// PrepareSession validates and resolves the session's workspaces and
// hidden paths.
func PrepareSession(ss SessionSpec, opt PrepareOptions) (SessionSpec, error) {
	if len(ss.Workspaces) == 0 {
		return ss, specErr("workspace", "", ErrBadSpec)
	}
	home := ""
	if opt.Home != "" {
		if h, err := filepath.EvalSymlinks(opt.Home); err == nil {
			home = h
		} else {
			home = filepath.Clean(opt.Home)
		}
	}
	out := ss
	out.Workspaces = nil
	for _, w := range ss.Workspaces {
		if hasNUL(w) {
			return ss, specErr("workspace", w, ErrNUL)
		}
		if !filepath.IsAbs(w) {
			return ss, specErr("workspace", w, ErrBadSpec)
		}
		real, err := filepath.EvalSymlinks(w)
		if err != nil {
			return ss, specErr("workspace", w, errors.Join(ErrBadSpec, err))
		}
		st, err := os.Stat(real)
		if err != nil || !st.IsDir() {
			return ss, specErr("workspace", w, ErrBadSpec)
		}
		if IsSystemPath(real) || (home != "" && WithinClean(home, real)) {
			return ss, specErr("workspace", w, ErrUnsafeWorkspace)
		}
		out.Workspaces = append(out.Workspaces, real)
	}
	out.Hidden = nil
	for _, h := range ss.Hidden {
		if hasNUL(h) || !filepath.IsAbs(h) {
			return ss, specErr("hidden", h, ErrBadSpec)
		}
		out.Hidden = append(out.Hidden, resolveExisting(h))
	}
	if _, err := protect.ParseExposure(ss.ExposeSecrets); err != nil {
		return ss, specErr("expose_secrets", strings.Join(ss.ExposeSecrets, ","), errors.Join(ErrBadSpec, err))
	}
	if err := prepareSessionPaths(ss, &out, home); err != nil {
		return ss, err
	}
	return out, nil
}

// resolveExisting resolves symlinks in the longest existing prefix of p,
// so a path that does not exist yet still gets its real parent.
func resolveExisting(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// Prepare validates spec against a session already checked by
// PrepareSession. Nothing runs; every failure is a *SpecError.
func Prepare(ss SessionSpec, s Spec, opt PrepareOptions) (*Prepared, error) {
	if len(s.Argv) == 0 || s.Argv[0] == "" {
		return nil, specErr("argv", "", ErrEmptyArgv)
	}
	for i, a := range s.Argv {
		if hasNUL(a) {
			return nil, specErr(indexed("argv", i), strings.ReplaceAll(a, "\x00", `\0`), ErrNUL)
		}
	}
	for i, e := range s.Env {
		if hasNUL(e) {
			return nil, specErr(indexed("env", i), strings.ReplaceAll(envKey(e), "\x00", `\0`), ErrNUL)
		}
		if !strings.Contains(e, "=") || strings.HasPrefix(e, "=") {
			return nil, specErr(indexed("env", i), envKey(e), ErrBadSpec)
		}
	}
	if len(ss.Workspaces) == 0 {
		return nil, specErr("workspace", "", ErrBadSpec)
	}
	p := &Prepared{
		Argv:       append([]string(nil), s.Argv...),
		Env:        append([]string(nil), s.Env...),
		Workspaces: ss.Workspaces,
		ReadOnly:   append([]string(nil), ss.ReadOnly...),
		ReadWrite:  append([]string(nil), ss.GitDirs...),
		Cache:      ss.Cache,
		GitDirs:    ss.GitDirs,
		Network:    s.Network,
		Limits:     s.Limits,
		Spec:       s,
		StageRoot:  ss.StageRoot,
		Tmp:        ss.Tmp,
	}
	if s.Stage != nil {
		if s.ReadOnlyWorkspaces {
			// A staged run writes its upper layer; one that only reads
			// has nothing to stage.
			return nil, specErr("read_only_workspaces", "with stage", ErrBadSpec)
		}
		st, err := prepareStage(ss, *s.Stage)
		if err != nil {
			return nil, err
		}
		p.Stage = &st
	}
	if p.Network.Mode == "" {
		p.Network.Mode = NetNone
	}
	switch p.Network.Mode {
	case NetNone, NetHost:
	case NetProxy:
		if p.Network.Proxy == nil {
			return nil, specErr("network.proxy", "", ErrBadSpec)
		}
	default:
		return nil, specErr("network", string(p.Network.Mode), ErrBadSpec)
	}

	dir, err := resolveInWorkspace("dir", s.Dir, ss.Workspaces)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, specErr("dir", s.Dir, ErrBadSpec)
	}
	p.Dir = dir

	for i, r := range s.ReadWrite {
		rp, err := resolveExtra(indexed("read_write", i), r, ss.Workspaces)
		if err != nil {
			return nil, err
		}
		if IsSystemPath(rp) {
			return nil, specErr(indexed("read_write", i), r, ErrUnsafeWorkspace)
		}
		p.ReadWrite = append(p.ReadWrite, rp)
	}
	for i, r := range s.ReadOnly {
		rp, err := resolveExtra(indexed("read_only", i), r, ss.Workspaces)
		if err != nil {
			return nil, err
		}
		p.ReadOnly = append(p.ReadOnly, rp)
	}
	expose, err := protect.ParseExposure(append(append([]string(nil), ss.ExposeSecrets...), s.ExposeSecrets...))
	if err != nil {
		return nil, specErr("expose_secrets", strings.Join(s.ExposeSecrets, ","), errors.Join(ErrBadSpec, err))
	}
	p.Expose = expose
	p.Hidden = append(p.Hidden, ss.Hidden...)
	for i, h := range s.Hidden {
		if hasNUL(h) {
			return nil, specErr(indexed("hidden", i), h, ErrNUL)
		}
		if !filepath.IsAbs(h) {
			h = filepath.Join(ss.Workspaces[0], h)
		}
		if h = resolveExisting(h); !slices.Contains(p.Hidden, h) {
			// The session and the call often name the same path (the data
			// dir); each copy would cost the sandbox another set of mounts.
			p.Hidden = append(p.Hidden, h)
		}
	}

	if opt.SkipLookup {
		p.Path = s.Argv[0]
		return p, nil
	}
	path, err := lookPath(s.Argv[0], p.Dir, envValue(p.Env, "PATH"))
	if err != nil {
		return nil, specErr("argv[0]", s.Argv[0], err)
	}
	p.Path = path
	return p, nil
}

// resolveInWorkspace resolves a working dir: relative to the first
// workspace, never escaping it lexically or through a symlink.
func resolveInWorkspace(field, v string, workspaces []string) (string, error) {
	if hasNUL(v) {
		return "", specErr(field, v, ErrNUL)
	}
	if v == "" {
		return workspaces[0], nil
	}
	lexical := v
	if !filepath.IsAbs(v) {
		lexical = filepath.Join(workspaces[0], v)
		if !WithinClean(lexical, workspaces[0]) {
			return "", specErr(field, v, ErrPathEscape)
		}
	}
	lexical = filepath.Clean(lexical)
	real, err := filepath.EvalSymlinks(lexical)
	if err != nil {
		return "", specErr(field, v, errors.Join(ErrBadSpec, err))
	}
	inside := func(p string) bool {
		for _, w := range workspaces {
			if WithinClean(p, w) {
				return true
			}
		}
		return false
	}
	if !inside(real) {
		if inside(lexical) || !filepath.IsAbs(v) {
			return "", specErr(field, v, ErrPathEscape)
		}
		return "", specErr(field, v, ErrOutsideWorkspace)
	}
	return real, nil
}

// resolveExtra resolves an extra RO/RW path. Relative paths live in the
// first workspace and may not escape it; absolute ones are taken as given.
func resolveExtra(field, v string, workspaces []string) (string, error) {
	if hasNUL(v) {
		return "", specErr(field, v, ErrNUL)
	}
	if v == "" {
		return "", specErr(field, v, ErrBadSpec)
	}
	if !filepath.IsAbs(v) {
		return resolveInWorkspace(field, v, workspaces)
	}
	real, err := filepath.EvalSymlinks(v)
	if err != nil {
		return "", specErr(field, v, errors.Join(ErrBadSpec, err))
	}
	return real, nil
}

// lookPath finds a program the way execvp would, using the sandbox's PATH
// rather than the daemon's.
func lookPath(name, dir, pathEnv string) (string, error) {
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if err := executable(p); err != nil {
			return "", err
		}
		return p, nil
	}
	if pathEnv == "" {
		pathEnv = DefaultPath
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" || !filepath.IsAbs(d) {
			continue // relative PATH entries would depend on the cwd
		}
		p := filepath.Join(d, name)
		if executable(p) == nil {
			return p, nil
		}
	}
	return "", ErrNotFound
}

func executable(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return ErrNotFound
		}
		return errors.Join(ErrNotFound, err)
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return ErrNotFound
	}
	return nil
}

func envKey(e string) string {
	k, _, _ := strings.Cut(e, "=")
	return k
}

// envValue returns the last value of key in env.
func envValue(env []string, key string) string {
	v := ""
	for _, e := range env {
		if k, val, ok := strings.Cut(e, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// RunEnv is a run's environment: the spec's, with HOME, TMPDIR and PATH
// filled in where it leaves them unset.
func RunEnv(env []string, home, tmp string) []string {
	env = WithDefaultEnv(env, "HOME", home)
	env = WithDefaultEnv(env, "TMPDIR", tmp)
	return WithDefaultEnv(env, "PATH", DefaultPath)
}

// WithDefaultEnv returns env with key=value appended when key is absent.
func WithDefaultEnv(env []string, key, value string) []string {
	for _, e := range env {
		if envKey(e) == key {
			return env
		}
	}
	return append(env, key+"="+value)
}

func indexed(field string, i int) string {
	return field + "[" + strconv.Itoa(i) + "]"
}
