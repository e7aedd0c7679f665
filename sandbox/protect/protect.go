// Package protect lists the paths inside a writable workspace that stay
// read-only (git hooks and config, shell rc files, agent and editor
// config), and reserves the ones that do not exist yet so a sandbox can
// mount over them and keep them uncreatable.
package protect

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
)

// Names are protected paths relative to a workspace root. Each of them,
// if written by an agent, would run code outside the sandbox later.
// Agents' own project config is here too: Claude Code's .claude holds
// hooks that run shell commands, and .cursor, .codex and .gemini name MCP
// servers to start. backend/policy asks before file tools write the same
// names (a test there holds the two lists together).
var Names = []string{
	".git/hooks", ".git/config",
	".mcp.json", ".claude", ".cursor", ".codex", ".gemini",
	".vscode", ".idea", ".gatehouse", ".gatehouse.toml",
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
	".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".envrc",
}

// Set is the protected paths of one workspace, split by whether they
// exist now.
type Set struct {
	Existing []string
	Missing  []string
}

// For computes the protected paths of workspace ws (absolute, resolved).
// Any root entry named .gatehouse* is protected too. A .git that is a
// file (worktree pointer) is protected itself, and so are the config and
// hooks of the git dirs it points to (see FindLinked).
func For(ws string) Set {
	var s Set
	seen := map[string]bool{}
	add := func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		if _, err := os.Lstat(p); err == nil {
			s.Existing = append(s.Existing, p)
		} else {
			s.Missing = append(s.Missing, p)
		}
	}
	gitDir := false
	if st, err := os.Lstat(filepath.Join(ws, ".git")); err == nil {
		if st.IsDir() {
			gitDir = true
		} else {
			add(filepath.Join(ws, ".git"))
		}
	}
	for _, n := range Names {
		if strings.HasPrefix(n, ".git/") && !gitDir {
			continue
		}
		add(filepath.Join(ws, n))
	}
	if ents, err := os.ReadDir(ws); err == nil {
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".gatehouse") {
				add(filepath.Join(ws, e.Name()))
			}
		}
	}
	if l, err := FindLinked(ws); err == nil {
		for _, p := range LinkedNames(l) {
			add(p)
		}
	}
	sort.Strings(s.Existing)
	sort.Strings(s.Missing)
	return s
}

// Placeholders are empty read-only directories created on the host at
// missing protected paths, so a sandbox has a mount point to cover them
// with. They are shared between concurrent runs and removed when the
// last run using them releases them.
type Placeholders struct {
	mu   sync.Mutex
	refs map[string]int
	// pool, when set, holds spare placeholders (see pool.go); pooled marks
	// the held ones that came from it and go back to it.
	pool   *pool
	pooled map[string]bool
}

// Shared is the process-wide placeholder registry.
var Shared = &Placeholders{}

// Reserve creates placeholders for paths (whose parents must exist) and
// returns the ones it holds; pass them to Release after the run. Paths
// that exist already are left to the caller.
func (r *Placeholders) Reserve(paths []string) []string {
	held, _ := r.Cover(paths)
	return held
}

// Cover decides, in one step, how each protected path is kept
// read-only: held are placeholders (new, or another run's) to cover,
// existing are the user's own files and directories. A path whose parent
// does not exist is in neither: there is nothing to cover.
func (r *Placeholders) Cover(paths []string) (held, existing []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refs == nil {
		r.refs = map[string]int{}
	}
	for _, p := range paths {
		if r.refs[p] > 0 {
			r.refs[p]++
			held = append(held, p)
			continue
		}
		var err error
		if r.pool.take(p) {
			r.pooled[p] = true
		} else {
			err = os.Mkdir(p, 0o555)
		}
		switch {
		case err == nil:
			r.refs[p] = 1
			held = append(held, p)
		case errors.Is(err, fs.ErrExist):
			existing = append(existing, p)
		}
	}
	return held, existing
}

// Release drops one hold on each path and removes placeholders nobody
// holds. os.Remove only removes an empty directory, so nothing a user
// put there is lost.
func (r *Placeholders) Release(paths []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range paths {
		r.refs[p]--
		if r.refs[p] <= 0 {
			delete(r.refs, p)
			if r.pooled[p] {
				delete(r.pooled, p)
				if r.pool.give(p) {
					continue
				}
			}
			_ = syscall.Rmdir(p) // never a file: this only ever made directories
		}
	}
}
