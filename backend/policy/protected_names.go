package policy

import (
	"path"
	"strings"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// What the sandbox keeps read-only in a workspace beyond agent, editor
// and shell config, as file tools see it: what git runs or reads as
// configuration from a git dir, the hook runners' config, and the paths
// the repository's own config names (Session.Protected).

// gitProtected reports a path inside a git dir that git runs or reads as
// configuration: any git dir's hooks, config, config.worktree and
// commondir (submodules' under .git/modules included), a linked
// worktree's admin files, anything under .git/modules (a git dir planted
// there is adopted by a later `git submodule update`), and a .git entry
// itself (a .git file names the repository git uses).
func gitProtected(p string) (string, bool) {
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	last := -1
	for i, c := range parts {
		if c == ".git" {
			last = i
		}
	}
	switch {
	case last < 0:
		return "", false
	case last == len(parts)-1:
		return ".git", true
	}
	rest := parts[last+1:]
	switch {
	case rest[0] == "hooks":
		return "hooks", true
	case len(rest) == 1 && (rest[0] == "config" || rest[0] == "config.worktree" || rest[0] == "commondir"):
		return ".git/" + rest[0], true
	case rest[0] == "modules":
		return ".git/modules", true
	case rest[0] == "worktrees" && len(rest) == 3:
		switch rest[2] {
		case "commondir", "gitdir", "config.worktree":
			return rest[2], true
		}
	}
	return "", false
}

// hookRunnerProtected reports a hook runner's config (husky, pre-commit,
// lefthook): the very list the sandbox protects.
func hookRunnerProtected(p string) (string, bool) {
	for _, n := range protect.HookRunnerNames {
		if strings.Contains(n, "/") {
			if strings.HasSuffix(p, "/"+n) {
				return n, true
			}
			continue
		}
		if path.Base(p) == n || strings.Contains(p, "/"+n+"/") {
			return n, true
		}
	}
	return "", false
}

// sessionProtected reports p when it is, or lies inside, one of the
// session's protected paths.
func sessionProtected(p string, protected []string) (Risk, bool) {
	for _, x := range protected {
		if within(p, x) {
			return Risk{Kind: RiskProtected, field: fieldText, names: []string{path.Base(x)},
				Detail: p + " is kept read-only in the sandbox: the repository's git config names it, so git reads or runs it on the host"}, true
		}
	}
	return Risk{}, false
}
