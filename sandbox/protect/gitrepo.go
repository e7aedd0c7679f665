package protect

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// What git runs or reads as configuration from a repository, found from
// the repository itself: every git dir's hooks, config, config.worktree
// and commondir (a commondir file makes another directory the repository,
// hooks and config included), the directories core.hooksPath names, the
// config files the repository's config includes from inside it, the git
// dirs of submodules under modules/ (nested), and linked worktrees' admin
// files under worktrees/.

const (
	maxConfigBytes = 1 << 20
	// maxIncludeDepth is git's own limit (it dies beyond it).
	maxIncludeDepth = 10
	// maxModuleDepth bounds nesting under modules/: names with slashes
	// and submodules of submodules.
	maxModuleDepth = 16
)

// gitDirFiles are the entries of a git dir that git runs or reads as
// configuration.
var gitDirFiles = []string{"hooks", "config", "config.worktree", "commondir"}

// worktreeAdminFiles are the entries of a linked worktree's admin dir
// (worktrees/NAME) that decide its repository and configuration; its
// hooks are the common dir's.
var worktreeAdminFiles = []string{"config.worktree", "commondir", "gitdir"}

// repoScan collects one workspace's git paths.
type repoScan struct {
	c    *collector
	home string
	seen map[string]bool // git dirs already scanned
	// hookDirs are where git finds the hooks it runs for commits in the
	// workspace itself (which hook runners they call decides which
	// runners' config is protected).
	hookDirs []string
}

// git scans the repository at workspace root ws.
func (r *repoScan) git(ws string) error {
	dot := filepath.Join(ws, ".git")
	st, err := os.Lstat(dot)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// No repository here, and none may be made: git would run its
		// hooks on the person's next git command in the workspace.
		r.c.add(dot)
		return r.enclosing(ws)
	case err != nil:
		return fmt.Errorf("inspect %s: %w", dot, err)
	case st.IsDir():
		return r.gitDir(dot, ws, 0)
	}
	// A gitdir pointer (linked worktree, submodule checkout) or a link:
	// redirecting it would hand git another repository.
	r.c.add(dot)
	gd, err := gitDirOf(dot)
	if err != nil {
		return nil // git cannot use it either
	}
	return r.gitDir(gd, ws, 0)
}

// enclosing finds the repository a workspace without .git sits in: its
// config may name a hooks directory inside the workspace.
func (r *repoScan) enclosing(ws string) error {
	for d := filepath.Dir(ws); ; d = filepath.Dir(d) {
		dot := filepath.Join(d, ".git")
		if _, err := os.Lstat(dot); err == nil {
			gd, err := gitDirOf(dot)
			if err != nil {
				return nil
			}
			return r.hooksPaths(gd, d)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// gitDir adds what git runs from git dir g, whose work tree is wt.
func (r *repoScan) gitDir(g, wt string, depth int) error {
	if r.seen[g] || depth > maxModuleDepth {
		return nil
	}
	r.seen[g] = true
	for _, n := range gitDirFiles {
		r.c.addIn(filepath.Join(g, n))
	}
	common := commonDir(g)
	if common != g {
		for _, n := range gitDirFiles {
			r.c.addIn(filepath.Join(common, n))
		}
	}
	if wt == r.c.ws {
		r.hookDirs = append(r.hookDirs, filepath.Join(common, "hooks"))
	}
	if err := r.hooksPaths(g, wt); err != nil {
		return err
	}
	if err := r.modules(filepath.Join(common, "modules"), depth); err != nil {
		return err
	}
	return r.worktrees(filepath.Join(common, "worktrees"))
}

// modules adds the git dirs of submodules under dir: a name may contain
// slashes (modules/lib/foo), and a submodule's own submodules live in its
// git dir's modules/. The directory itself is read-only, so no git dir
// can be planted there for a later `git submodule update` to adopt;
// each existing git dir in it stays writable.
func (r *repoScan) modules(dir string, depth int) error {
	st, err := os.Lstat(dir)
	if err != nil || !st.IsDir() {
		r.c.addIn(dir)
		return nil
	}
	r.c.addIn(dir)
	return r.moduleTree(dir, depth)
}

func (r *repoScan) moduleTree(dir string, depth int) error {
	if depth > maxModuleDepth {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("list %s: %w", dir, err)
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if !isGitDir(p) {
			// One component of a name with slashes: its own entries are
			// more names, and it takes no new ones either.
			r.c.addIn(p)
			if err := r.moduleTree(p, depth+1); err != nil {
				return err
			}
			continue
		}
		r.c.writable(p)
		// Its work tree is its core.worktree (hooksPaths reads it).
		if err := r.gitDir(p, "", depth+1); err != nil {
			return err
		}
	}
	return nil
}

// worktrees adds each linked worktree's admin files, and, for a worktree
// inside the workspace, its .git pointer and the hooks directories
// core.hooksPath names relative to it.
func (r *repoScan) worktrees(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil // none
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		admin := filepath.Join(dir, e.Name())
		for _, n := range worktreeAdminFiles {
			r.c.addIn(filepath.Join(admin, n))
		}
		b, err := readSmall(filepath.Join(admin, "gitdir"))
		if err != nil {
			continue
		}
		dotGit := strings.TrimRight(string(b), "\r\n")
		if !filepath.IsAbs(dotGit) {
			dotGit = filepath.Join(admin, dotGit)
		}
		if wt := filepath.Dir(filepath.Clean(dotGit)); r.c.inside(wt) {
			r.c.add(filepath.Join(wt, ".git"))
			if err := r.hooksPaths(admin, wt); err != nil {
				return err
			}
		}
	}
	return nil
}

// hooksPaths adds the directories core.hooksPath names for git dir g
// with work tree wt (relative values are relative to the work tree),
// from every config git reads for it, and the included config files
// that lie inside the workspace.
func (r *repoScan) hooksPaths(g, wt string) error {
	common := commonDir(g)
	var vals configVals
	for _, f := range r.globalConfigs() {
		v, err := r.configValues(f, "", true)
		if err != nil {
			return err
		}
		vals.merge(v)
	}
	local, err := r.configValues(filepath.Join(common, "config"), common, false)
	if err != nil {
		return err
	}
	vals.merge(local)
	// config.worktree counts only with extensions.worktreeConfig, which
	// the protected config sets; reading it always can only add paths.
	wtCfg, err := r.configValues(filepath.Join(g, "config.worktree"), common, false)
	if err != nil {
		return err
	}
	vals.merge(wtCfg)
	if w := local.worktree(common); w != "" && g == common {
		wt = w
		// A submodule's checkout: its .git file names this git dir, and
		// pointed elsewhere it would hand git a repository of the
		// agent's making.
		if st, err := os.Stat(wt); err == nil && st.IsDir() {
			r.c.addIn(filepath.Join(wt, ".git"))
		}
	}
	for _, hp := range vals.hooksPaths {
		p := expandHome(hp, r.home)
		if p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			if wt == "" {
				continue // a bare repository's hooks path is relative to its git dir, already protected
			}
			p = filepath.Join(wt, p)
		}
		p = filepath.Clean(p)
		r.c.addIn(p)
		if wt == r.c.ws {
			r.hookDirs = append(r.hookDirs, p)
		}
	}
	return nil
}

// globalConfigs are the system and user config files, which git reads
// for every repository before the repository's own.
func (r *repoScan) globalConfigs() []string {
	out := []string{"/etc/gitconfig"}
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && r.home != "" {
		xdg = filepath.Join(r.home, ".config")
	}
	if xdg != "" {
		out = append(out, filepath.Join(xdg, "git", "config"))
	}
	if r.home != "" {
		out = append(out, filepath.Join(r.home, ".gitconfig"))
	}
	return out
}

// configVals are the values read from one config file and its includes.
type configVals struct {
	hooksPaths []string
	worktrees  []string // core.worktree, last one wins
}

func (v *configVals) merge(o configVals) {
	v.hooksPaths = append(v.hooksPaths, o.hooksPaths...)
	v.worktrees = append(v.worktrees, o.worktrees...)
}

// worktree is core.worktree resolved against git dir g, or "".
func (v configVals) worktree(g string) string {
	if len(v.worktrees) == 0 {
		return ""
	}
	w := v.worktrees[len(v.worktrees)-1]
	if !filepath.IsAbs(w) {
		w = filepath.Join(g, w)
	}
	return filepath.Clean(w)
}

// configValues reads config file f and what it includes. repo is the
// repository's git dir: includes are followed only inside it or the
// workspace, unless anywhere is set (the person's own system and user
// files). Each include inside the workspace is protected, existing or
// not, since git would read it as configuration. A missing file is
// empty, as for git.
func (r *repoScan) configValues(f, repo string, anywhere bool) (configVals, error) {
	var out configVals
	var read func(f string, depth int) error
	read = func(f string, depth int) error {
		if depth > maxIncludeDepth {
			return fmt.Errorf("%s: includes nest deeper than %d: %w", f, maxIncludeDepth, errGitConfig)
		}
		b, err := readSmall(f)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read git config %s: %w", f, err)
		}
		vars, err := parseGitConfig(b)
		if err != nil {
			return fmt.Errorf("git config %s: %w", f, err)
		}
		for _, v := range vars {
			switch {
			case v.Name == "core.hookspath":
				if !v.HasValue {
					return fmt.Errorf("git config %s: line %d: core.hooksPath has no value: %w", f, v.Line, errGitConfig)
				}
				out.hooksPaths = append(out.hooksPaths, v.Value)
			case v.Name == "core.worktree" && v.HasValue:
				out.worktrees = append(out.worktrees, v.Value)
			case isInclude(v.Name):
				if !v.HasValue {
					return fmt.Errorf("git config %s: line %d: %s has no value: %w", f, v.Line, v.Name, errGitConfig)
				}
				// includeIf conditions (gitdir:, onbranch:, hasconfig:)
				// are not evaluated: following every one can only add
				// protected paths.
				inc := configPath(v.Value, f, r.home)
				if inc == "" {
					continue
				}
				inRepo := r.c.inside(inc) || (repo != "" && within(inc, repo))
				if r.c.inside(inc) {
					r.c.add(inc)
				}
				if !inRepo && !anywhere {
					continue
				}
				if err := read(inc, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return out, read(f, 0)
}

// splitVar splits "includeif.gitdir:x.path" into its section (with the
// subsection) and key.
func splitVar(name string) (section, key string) {
	i := strings.LastIndexByte(name, '.')
	return name[:i], name[i+1:]
}

// isInclude: the setting named (lower-case) is include.path or
// includeIf.CONDITION.path.
func isInclude(name string) bool {
	section, key := splitVar(name)
	return key == "path" && (section == "include" || strings.HasPrefix(section, "includeif."))
}

// configPath is path value v as git reads it in config file f: a leading
// ~/ is home, a relative path lies beside f; "" when it cannot be
// expanded here (~user/).
func configPath(v, f, home string) string {
	p := expandHome(v, home)
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(f), p)
	}
	return filepath.Clean(p)
}

// expandHome expands a leading ~/ as git does; "" means the value
// cannot be expanded here (~user/), and is skipped.
func expandHome(p, home string) string {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home == "" {
			return ""
		}
		return filepath.Join(home, p[1:])
	case strings.HasPrefix(p, "~"):
		return ""
	}
	return p
}

// gitDirOf resolves a .git entry to its git dir: a directory (or a link
// to one) is it; a file names it with "gitdir: PATH".
func gitDirOf(dot string) (string, error) {
	st, err := os.Stat(dot)
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		return filepath.EvalSymlinks(dot)
	}
	b, err := readSmall(dot)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	gd, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "gitdir: ")
	if !ok || gd == "" {
		return "", fmt.Errorf("%s is not a gitdir pointer", dot)
	}
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(filepath.Dir(dot), gd)
	}
	return filepath.Clean(gd), nil
}

// commonDir is the repository g belongs to: the directory its commondir
// file names, or g itself.
func commonDir(g string) string {
	b, err := readSmall(filepath.Join(g, "commondir"))
	if err != nil {
		return g
	}
	c := strings.TrimRight(string(b), "\r\n")
	if c == "" {
		return g
	}
	if !filepath.IsAbs(c) {
		c = filepath.Join(g, c)
	}
	return filepath.Clean(c)
}

// isGitDir reports whether d looks like a git dir, as git's own test
// does: a HEAD and an objects directory (or a commondir file).
func isGitDir(d string) bool {
	if _, err := os.Lstat(filepath.Join(d, "HEAD")); err != nil {
		return false
	}
	if st, err := os.Stat(filepath.Join(d, "objects")); err == nil && st.IsDir() {
		return true
	}
	_, err := os.Lstat(filepath.Join(d, "commondir"))
	return err == nil
}

// readSmall reads a regular file of at most maxConfigBytes. It never
// blocks on a FIFO or reads a device an include might name.
func readSmall(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, err
	}
	if n > maxConfigBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", p, maxConfigBytes)
	}
	return buf.Bytes(), nil
}

// within reports whether p is base or beneath it (both clean).
func within(p, base string) bool {
	return p == base || strings.HasPrefix(p, base+string(filepath.Separator))
}
