package protect

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Names are protected paths relative to a workspace root. Each of them,
// if written by an agent, would run code outside the sandbox later.
// Agents' own project config is here too: Claude Code's .claude holds
// hooks that run shell commands, and .cursor, .codex and .gemini name MCP
// servers to start. The hook runners' config (hookrunners.go) and what
// git itself runs (gitrepo.go) are found from the repository.
// backend/policy asks before file tools write the same names (a test
// there holds the lists together).
var Names = []string{
	".mcp.json", ".claude", ".cursor", ".codex", ".gemini",
	".vscode", ".idea", ".gatehouse", ".gatehouse.toml",
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
	".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".envrc",
}

// Set is the protected paths of one workspace, split by whether they
// exist now.
type Set struct {
	// Existing are kept read-only.
	Existing []string
	// Missing cannot be created. One whose parent does not exist either
	// is listed as its nearest missing ancestor (.config for
	// .config/lefthook.yml), which is what a command would create first.
	Missing []string
	// Writable are directories inside an Existing one that stay
	// writable: each submodule's git dir inside the read-only
	// .git/modules, so that no new one can be planted beside them.
	// Their own protected paths are in Existing and Missing.
	Writable []string
}

// All is every protected path, existing or not.
func (s Set) All() []string {
	return append(append([]string(nil), s.Existing...), s.Missing...)
}

// For computes the protected paths of workspace ws (absolute, resolved):
// Names, the steering files (steering.go), every root entry named
// .gatehouse*, and what git runs or reads
// as configuration from the workspace's repository. It reads the
// repository's config (and the person's global git config, for
// core.hooksPath); an error means git could not read it either, and no
// command should run until it is fixed.
func For(ws string) (Set, error) {
	home, _ := os.UserHomeDir()
	return forHome(ws, home)
}

func forHome(ws, home string) (Set, error) {
	c := &collector{ws: ws, seen: map[string]bool{}, stats: map[string]statResult{}}
	if ents, err := os.ReadDir(ws); err == nil {
		c.root = make(map[string]bool, len(ents))
		for _, e := range ents {
			c.root[e.Name()] = true
		}
	}
	for _, n := range Names {
		c.add(c.join(n))
	}
	c.steering()
	for name := range c.root {
		if strings.HasPrefix(name, ".gatehouse") {
			c.add(filepath.Join(ws, name))
		}
	}
	r := &repoScan{c: c, home: home, seen: map[string]bool{}}
	err := r.git(ws)
	c.hookRunners(r.hookDirs)
	// A linked worktree's git dirs lie outside the workspace and are
	// writable in the sandbox (see FindLinked): their config and hooks are not.
	if l, lerr := FindLinked(ws); lerr == nil {
		for _, p := range LinkedNames(l) {
			c.add(p)
		}
	}
	sort.Strings(c.set.Existing)
	sort.Strings(c.set.Missing)
	sort.Strings(c.set.Writable)
	if err != nil {
		return c.set, fmt.Errorf("find what git runs from %s: %w", ws, err)
	}
	return c.set, nil
}

// collector gathers one workspace's protected paths.
type collector struct {
	ws   string
	seen map[string]bool
	set  Set
	// root names the workspace's own entries, listed once per scan (nil
	// if it could not be): most protected names sit there, and a command
	// waits for the scan.
	root map[string]bool
	// stats remembers lstat's answer per path for the scan.
	stats map[string]statResult
}

type statResult struct {
	mode fs.FileMode
	err  error
}

// exists reports whether p is there, link or not.
func (c *collector) exists(p string) bool {
	if c.root != nil && filepath.Dir(p) == c.ws {
		return c.root[filepath.Base(p)]
	}
	_, err := c.lstat(p)
	return err == nil
}

// lstat is os.Lstat, asked once per path and scan; the workspace root,
// listed, is a directory.
func (c *collector) lstat(p string) (fs.FileMode, error) {
	if p == c.ws && c.root != nil {
		return fs.ModeDir, nil
	}
	if r, ok := c.stats[p]; ok {
		return r.mode, r.err
	}
	var r statResult
	if st, err := os.Lstat(p); err != nil {
		r.err = err
	} else {
		r.mode = st.Mode()
	}
	c.stats[p] = r
	return r.mode, r.err
}

// inside reports whether p lies in the workspace (not the root itself).
func (c *collector) inside(p string) bool {
	return p != c.ws && within(p, c.ws)
}

// addIn adds p if it lies in the workspace: nothing outside it is
// writable in the sandbox to begin with.
func (c *collector) addIn(p string) {
	if c.inside(p) {
		c.add(p)
	}
}

// add files p as existing or missing. A missing path is kept from being
// created where it would be: under its parent's real location when that
// is a link inside the workspace, and as its nearest missing ancestor
// when the parent does not exist.
func (c *collector) add(p string) {
	if c.exists(p) {
		c.file(p, &c.set.Existing)
		return
	}
	for {
		parent := filepath.Dir(p)
		mode, err := c.lstat(parent)
		switch {
		case err != nil:
			if parent == c.ws || !c.inside(parent) {
				return
			}
			p = parent
			continue
		case mode&fs.ModeSymlink != 0:
			real, err := filepath.EvalSymlinks(parent)
			if err != nil || !c.inside(real) {
				return // nothing the sandbox can write
			}
			c.add(filepath.Join(real, filepath.Base(p)))
			return
		case !mode.IsDir():
			return // nothing can be created under a file
		}
		c.file(p, &c.set.Missing)
		return
	}
}

// join is the workspace path of the slash-separated relative name n.
func (c *collector) join(n string) string {
	return filepath.Join(c.ws, filepath.FromSlash(n))
}

func (c *collector) writable(p string) {
	c.file(p, &c.set.Writable)
}

func (c *collector) file(p string, list *[]string) {
	if c.seen[p] {
		return
	}
	c.seen[p] = true
	*list = append(*list, p)
}
