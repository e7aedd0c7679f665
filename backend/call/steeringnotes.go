package call

import (
	"path"
	"strings"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// A command refused a file that steers the next agent session or that
// the person's tools run by themselves (CLAUDE.md, .devcontainer,
// mise.toml, …) sees only an errno, and would likely try another way;
// the note says which kind it is, who reads or runs it, and the one way
// that is open: write_file, which asks the person. Git's own config and
// hooks, which no tool of Gatehouse's writes, get a note that the person
// can run the git command instead.

// steeringSentence says what p is and how it may still be changed, or
// "" when p is no steering file.
func steeringSentence(p string) string {
	k, _, ok := protect.SteeringKind(p)
	if !ok {
		return ""
	}
	how := "write_file asks the person before changing it."
	if k.Instructions {
		how = "write_file can change it: the person is asked, unless their own request names the file."
	}
	return p + " " + k.Reader + ", so a command may not create or change it; " + how
}

// gitSentence says what p is when it is git's own configuration or a
// hook (.git/config, .git/hooks/…, a submodule's or worktree's config),
// which git reads and runs on the host, and what the person can do; ""
// otherwise.
func gitSentence(p string) string {
	rel := p
	if i := strings.LastIndex(p, "/.git/"); i >= 0 {
		rel = p[i+1:]
	}
	inGit, _ := strings.CutPrefix(rel, ".git/")
	if inGit == rel {
		return ""
	}
	var what, also string
	switch base := path.Base(inGit); {
	case base == "config" || base == "config.worktree":
		what = "git's configuration"
		// git rewrites the file whole to take a section out, and
		// `git branch -D` does so for every branch, settings or none.
		also = " git rewrites it even when nothing in it changes (git branch -D of a branch with no settings there): then the rest of the command took effect and nothing was lost."
	case inGit == "hooks" || strings.HasPrefix(inGit, "hooks/") || strings.Contains(inGit, "/hooks/"):
		what = "one of git's hooks"
	default:
		return ""
	}
	return p + " is " + what + ", which git reads and runs on the person's machine outside any sandbox, so a command may not change it; ask the person to run the git command that changes it (git config, git remote add, git submodule init) themselves." + also
}

// steeringErrnos are the errno texts a refused write shows as: a
// read-only mount (or a rename onto one), the creation guard, Landlock.
var steeringErrnos = []string{"read-only file system", "device or resource busy", "permission denied", "operation not permitted"}

// steeringNotes reads a command's error output for refused writes of
// steering files and git's own configuration, one note per file, at most
// maxBoundaryNotes.
func steeringNotes(out *commandOutput) []string {
	seen := map[string]bool{}
	return stderrNotes(out, steeringErrnos, func(line, _ string) (string, bool) {
		for _, tok := range strings.FieldsFunc(line, func(r rune) bool {
			return r == ' ' || r == '\'' || r == '"' || r == ':' || r == '‘' || r == '’' || r == '`' || r == '\t'
		}) {
			tok = path.Clean(tok)
			if seen[tok] {
				continue
			}
			s := steeringSentence(tok)
			if s == "" {
				s = gitSentence(tok)
			}
			if s != "" {
				seen[tok] = true
				return "Gatehouse's sandbox refused the write: " + s, true
			}
		}
		return "", false
	})
}
