package toolchain

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// Set is what a person's PATH needs inside every sandbox: the
// run's PATH and the host directories its programs live in, shown
// read-only.
type Set struct {
	// Path is the run's PATH, in order.
	Path []string `json:"path"`
	// ReadOnly are the host directories (and single programs, linked from
	// a PATH directory) to expose read-only, resolved, none inside
	// another.
	ReadOnly []string `json:"read_only"`
	// Env are KEY=VALUE settings the exposed toolchains need to find
	// themselves when $HOME is not the real one (RUSTUP_HOME, PYENV_ROOT…).
	Env []string `json:"env,omitempty"`
	// Notes say, one sentence each, which entries sandboxes lose that the
	// person's own shell has: refused, relative, or a read_only entry the
	// config names that is not there.
	Notes []string `json:"notes,omitempty"`
	// Skipped say which PATH entries lead nowhere (missing, not a
	// directory): the person's shell finds nothing there either, so they
	// are worth a log line, not a warning on every run.
	Skipped []string `json:"skipped,omitempty"`
}

// PathString is Path joined for a PATH variable.
func (t Set) PathString() string { return strings.Join(t.Path, string(os.PathListSeparator)) }

// Options are the inputs to Find.
type Options struct {
	// Path are the daemon's own PATH entries.
	Path []string
	// Extra are entries the person added in the config; they come first.
	Extra []string
	// ReadOnly are more directories the person wants visible.
	ReadOnly []string
	// Home is the real home directory.
	Home string
	// Getenv reads the daemon's environment (toolchain homes such as
	// RUSTUP_HOME); nil means os.Getenv.
	Getenv func(string) string
	// Hide are paths no sandbox may see through a toolchain: Gatehouse's
	// own programs and the checkout they were built in. A PATH entry
	// inside one is skipped, and a program linked into one is not shown.
	Hide []string
}

// toolchainHome is a toolchain kept in one directory under $HOME (or
// named by its variable): a PATH entry inside it exposes all of it, and
// its variable is set so it finds itself under any $HOME.
type toolchainHome struct {
	rel string // under $HOME
	env string // the variable naming it, "" if none
}

var toolchainHomes = []toolchainHome{
	{".rustup", "RUSTUP_HOME"}, {".pyenv", "PYENV_ROOT"}, {".rbenv", "RBENV_ROOT"},
	{".nodenv", "NODENV_ROOT"}, {".goenv", "GOENV_ROOT"}, {".jenv", ""}, {".plenv", ""},
	{".nvm", "NVM_DIR"}, {".volta", "VOLTA_HOME"}, {".asdf", "ASDF_DATA_DIR"},
	{".sdkman", "SDKMAN_DIR"}, {".local/share/mise", "MISE_DATA_DIR"},
	{".local/share/fnm", "FNM_DIR"}, {".fnm", ""}, {".deno", "DENO_INSTALL"}, {".bun", "BUN_INSTALL"},
	{".local/share/pnpm", "PNPM_HOME"}, {".ghcup", ""}, {".opam", "OPAMROOT"},
	{".juliaup", ""}, {".elan", "ELAN_HOME"},
}

// companions are toolchain homes a PATH entry needs beside itself:
// rustup's proxies in ~/.cargo/bin run toolchains from ~/.rustup.
var companions = map[string][]string{".cargo/bin": {".rustup"}}

// leafOnly are directories under $HOME whose bin is exposed alone: the
// parent holds other things (GOPATH sources, ~/.local/share, cargo's
// credentials), so only the binaries are shown.
var leafOnly = []string{"", ".local", "go", ".cargo"}

// binNames are PATH entry names that belong to an installation one
// level up (/opt/tool/bin needs /opt/tool/lib).
var binNames = []string{"bin", "sbin", "shims"}

// Find works out the run's PATH and what must be visible for
// it. It refuses (with an error naming the entry) only a read_only entry
// that would expose a secret; PATH entries that do not exist, are
// relative or are world-writable are skipped with a note.
func Find(o Options) (Set, error) {
	var t Set
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	home := o.Home
	if h, err := filepath.EvalSymlinks(home); err == nil {
		home = h
	}
	f := &finder{home: home, getenv: getenv, env: map[string]string{}}
	for _, h := range o.Hide {
		if r, err := filepath.EvalSymlinks(h); err == nil && !isSystemDir(r) {
			f.hide = append(f.hide, r)
		}
	}
	seen := map[string]bool{}
	entries := append(append([]string{}, o.Extra...), o.Path...)
	for _, d := range filepath.SplitList(sandbox.DefaultPath) {
		entries = append(entries, d) // a daemon started with a bare PATH still finds the system's tools
	}
	for _, e := range entries {
		e = expandHome(e, o.Home)
		if e == "" || seen[e] {
			continue
		}
		seen[e] = true
		if !filepath.IsAbs(e) {
			t.Notes = append(t.Notes, fmt.Sprintf("PATH entry %q is relative, so it would depend on the working directory; skipped", e))
			continue
		}
		real, err := filepath.EvalSymlinks(e)
		if err != nil {
			if !slices.Contains(filepath.SplitList(sandbox.DefaultPath), e) {
				t.Skipped = append(t.Skipped, fmt.Sprintf("PATH entry %s does not exist; skipped", e))
			}
			continue
		}
		if st, err := os.Stat(real); err != nil || !st.IsDir() {
			t.Skipped = append(t.Skipped, fmt.Sprintf("PATH entry %s is not a directory; skipped", e))
			continue
		}
		if w := worldWritable(real); w != "" {
			what := w
			if w == real {
				what = "it"
			}
			t.Notes = append(t.Notes, fmt.Sprintf("PATH entry %s is not shown to sandboxes: %s is writable by every user, so anyone could plant a program there; remove its o+w permission (chmod o-w)", e, what))
			continue
		}
		if s := sandbox.SecretInside(real, home); s != "" && !isSystemDir(real) {
			t.Notes = append(t.Notes, fmt.Sprintf("PATH entry %s is not shown to sandboxes: it would reveal %s", e, s))
			continue
		}
		if h := f.hidden(real); h != "" {
			t.Notes = append(t.Notes, fmt.Sprintf("PATH entry %s is not shown to sandboxes: it is inside %s, Gatehouse's own checkout or installation", e, h))
			continue
		}
		t.Path = append(t.Path, e)
		f.expose(real, 0)
	}
	for _, r := range o.ReadOnly {
		r = expandHome(r, o.Home)
		if !filepath.IsAbs(r) {
			return t, fmt.Errorf("[sandbox] read_only entry %q is not an absolute path; write it in full (~/ works)", r)
		}
		real, err := filepath.EvalSymlinks(r)
		if err != nil {
			t.Notes = append(t.Notes, fmt.Sprintf("[sandbox] read_only entry %s does not exist; skipped", r))
			continue
		}
		if s := sandbox.SecretInside(real, home); s != "" {
			return t, fmt.Errorf("[sandbox] read_only entry %s would show sandboxes %s, which holds credentials or history; name a directory that does not contain it", r, s)
		}
		if s, _ := sandbox.SocketIn(real); s != "" {
			return t, fmt.Errorf("[sandbox] read_only entry %s would show sandboxes the unix socket %s, which connects to the service behind it even read-only; name a directory that does not contain it", r, s)
		}
		f.add(real)
	}
	t.ReadOnly = f.roots()
	keys := make([]string, 0, len(f.env))
	for k := range f.env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		t.Env = append(t.Env, k+"="+f.env[k])
	}
	return t, nil
}

type finder struct {
	home   string
	getenv func(string) string
	dirs   []string
	env    map[string]string
	hide   []string
}

// hidden is the Hide entry p lies in (or is), "" when none.
func (f *finder) hidden(p string) string {
	for _, h := range f.hide {
		if sandbox.WithinClean(p, h) {
			return h
		}
	}
	return ""
}

// maxLinkDepth bounds how far expose follows programs that are symbolic
// links into other installations (~/.local/bin/black -> a pipx venv).
const maxLinkDepth = 2

// expose adds what the PATH directory dir (resolved) needs: the
// installation or toolchain home it belongs to, or itself when it only
// holds links to programs elsewhere (an install prefix's bin/ whose
// programs live in their own trees says nothing about its parent).
func (f *finder) expose(dir string, depth int) {
	if isSystemDir(dir) {
		return // already visible read-only everywhere
	}
	ents, err := os.ReadDir(dir)
	if err == nil && depth == 0 && onlyLinks(ents) {
		f.add(dir)
	} else {
		f.add(f.root(dir))
	}
	if rel, ok := f.underHome(dir); ok {
		for _, c := range companions[rel] {
			if h := f.homeDir(c); h != "" {
				f.add(f.root(h))
			}
		}
	}
	if depth >= maxLinkDepth || err != nil {
		return
	}
	// Programs that are links into another installation need it too; a
	// program linked from anywhere else is shown alone, never the tree
	// it sits in.
	for i, e := range ents {
		if i >= 1000 {
			break
		}
		if e.Type()&os.ModeSymlink == 0 {
			continue
		}
		t, err := filepath.EvalSymlinks(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		td := filepath.Dir(t)
		if td == dir || isSystemDir(td) || worldWritable(td) != "" || sandbox.SecretInside(td, f.home) != "" || f.hidden(t) != "" {
			continue
		}
		if f.installation(td) {
			f.expose(td, depth+1)
			continue
		}
		if st, err := os.Stat(t); err == nil && st.Mode().IsRegular() {
			f.add(t)
		}
	}
}

// onlyLinks reports whether a directory's entries are all symbolic links
// (and there is at least one).
func onlyLinks(ents []os.DirEntry) bool {
	for _, e := range ents {
		if e.Type()&os.ModeSymlink == 0 {
			return false
		}
	}
	return len(ents) > 0
}

// installation reports whether dir, where a linked program lives, belongs
// to a toolchain that needs its whole tree: a toolchain home, a Go
// installation, a Python virtual environment, or an install prefix with
// its libraries beside bin/. A source checkout is none of these: a
// program built in one is shown alone.
func (f *finder) installation(dir string) bool {
	for _, th := range toolchainHomes {
		if h := f.homeDir(th.rel); h != "" && sandbox.WithinClean(dir, h) {
			return true
		}
	}
	if goRootOf(dir) != "" {
		return true
	}
	parent := filepath.Dir(dir)
	if !slices.Contains(binNames, filepath.Base(dir)) || parent == dir {
		return false
	}
	exists := func(name string) bool { _, err := os.Lstat(filepath.Join(parent, name)); return err == nil }
	if exists("pyvenv.cfg") {
		return true
	}
	for _, src := range []string{".git", "go.mod", "Makefile", "package.json", "Cargo.toml"} {
		if exists(src) {
			return false
		}
	}
	for _, lib := range []string{"lib", "lib64", "libexec", "share"} {
		if exists(lib) {
			return true
		}
	}
	return false
}

// root is the directory to expose for the PATH directory dir: the
// toolchain home it lies in, else the installation its bin belongs to,
// else dir itself.
func (f *finder) root(dir string) string {
	for _, th := range toolchainHomes {
		h := f.homeDir(th.rel)
		if h != "" && sandbox.WithinClean(dir, h) {
			if th.env != "" {
				f.env[th.env] = h
			}
			return h
		}
	}
	if goroot := goRootOf(dir); goroot != "" {
		return goroot
	}
	parent := filepath.Dir(dir)
	if !slices.Contains(binNames, filepath.Base(dir)) || parent == dir {
		return dir
	}
	for _, l := range leafOnly {
		if parent == filepath.Join(f.home, l) {
			return dir
		}
	}
	if sandbox.SecretInside(parent, f.home) != "" || worldWritable(parent) != "" {
		return dir
	}
	return parent
}

// homeDir is where toolchain home rel lives: its variable when the
// daemon has it set, else under $HOME. "" when it does not exist.
func (f *finder) homeDir(rel string) string {
	p := filepath.Join(f.home, rel)
	for _, th := range toolchainHomes {
		if th.rel == rel && th.env != "" && f.getenv(th.env) != "" {
			p = f.getenv(th.env)
		}
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil || !filepath.IsAbs(real) || sandbox.SecretInside(real, f.home) != "" {
		return ""
	}
	return real
}

func (f *finder) underHome(dir string) (string, bool) {
	if f.home == "" || !sandbox.WithinClean(dir, f.home) || dir == f.home {
		return "", false
	}
	return dir[len(f.home)+1:], true
}

// goRootOf finds a Go installation that dir (its bin) belongs to.
func goRootOf(dir string) string {
	if filepath.Base(dir) != "bin" {
		return ""
	}
	root := filepath.Dir(dir)
	for _, marker := range []string{"src/runtime", "pkg/tool"} {
		if st, err := os.Stat(filepath.Join(root, marker)); err != nil || !st.IsDir() {
			return ""
		}
	}
	return root
}

// add records dir unless it is already covered.
func (f *finder) add(dir string) {
	if isSystemDir(dir) {
		return
	}
	f.dirs = append(f.dirs, dir)
}

// roots are the recorded directories without duplicates or ones inside
// another, sorted.
func (f *finder) roots() []string {
	d := slices.Clone(f.dirs)
	slices.Sort(d)
	var out []string
	for _, p := range d {
		if len(out) > 0 && sandbox.WithinClean(p, out[len(out)-1]) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// isSystemDir reports whether p lies in a directory every sandbox shows
// read-only anyway.
func isSystemDir(p string) bool {
	for _, d := range sandbox.SystemDirs {
		if sandbox.WithinClean(p, d) {
			return true
		}
	}
	return false
}

// worldWritable names p, or an ancestor that lets anyone rename p away,
// when another user could put a program in p: p writable by all, or an
// ancestor writable by all without the sticky bit. "" when neither.
func worldWritable(p string) string {
	st, err := os.Stat(p)
	if err != nil {
		return ""
	}
	if st.Mode().Perm()&0o002 != 0 {
		return p
	}
	for d := filepath.Dir(p); ; d = filepath.Dir(d) {
		if st, err := os.Stat(d); err == nil && st.Mode().Perm()&0o002 != 0 && st.Mode()&os.ModeSticky == 0 {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// expandHome turns a leading ~/ into the home directory.
func expandHome(p, home string) string {
	if home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
		return filepath.Join(home, strings.TrimPrefix(p, "~"))
	}
	return p
}
