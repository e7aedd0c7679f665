package hookserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/secretholders"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/backend/transport/hookwire"
	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// searchAnswer allows an agent's own search or read of many files. It
// runs in the agent's process, outside the sandbox, and hands the model
// what it finds, which the hook cannot redact: so the files the sandbox
// hides (.env and its copies, keys, credential files) are left out of
// it by globs added after the agent's own (Claude Code's Grep, which
// ripgrep applies last; Gemini CLI's read_many_files excludes). A search
// that takes no such globs (Gemini CLI's grep_search) is refused where
// one of those files lies below it, pointing at the shell, whose grep
// runs in the sandbox. A search of one file is pointed at a redacted
// copy, as a read is.
func (s *Server) searchAnswer(ctx context.Context, ev hookwire.Event, n native, st *session.State, key session.RunKey) hookwire.Answer {
	if n.searchPathKey != "" {
		if fi, err := os.Stat(n.paths[0]); err == nil && fi.Mode().IsRegular() {
			n.pathKey = n.searchPathKey
			return s.readAnswer(ev, n, st, key)
		}
	}
	var input json.RawMessage
	var err error
	switch {
	case n.globKey != "":
		globs, held, refusal := s.searchExclusions(ctx, n.paths[0])
		if refusal != "" {
			return deny("%s", refusal)
		}
		if input, err = withExclusions(ev.Input, n.globKey, globs); err == nil && len(held) > 0 {
			// Said to the model, so a match missing from those files is
			// not taken for no match.
			return hookwire.Answer{Verdict: hookwire.Allow, Input: input, Context: leftOutNote(held)}
		}
	case n.excludeKey != "":
		input, err = withExcludeList(ev.Input, n.excludeKey, protect.SecretSearchGlobs())
	default:
		if what := s.unsearchable(ctx, n, st); what != "" {
			return deny("Gatehouse blocked this search: %s holds %s, and this search tool would read it outside Gatehouse's sandbox and show it unredacted. Search with grep or rg through the shell instead: Gatehouse runs it in its sandbox, where hidden files are hidden and secrets redacted.",
				n.paths[0], what)
		}
		return allow
	}
	if err != nil {
		return deny("Gatehouse blocked this search: %v.", err)
	}
	return hookwire.Answer{Verdict: hookwire.Allow, Input: input,
		Reason: "Gatehouse leaves the files it hides (.env, keys, credential files) out of the agent's own search."}
}

// unsearchable says what below a search's folder it must not read, for a
// search that takes no exclusions (Gemini CLI's grep_search): a file the
// sandbox hides, or one whose content holds a secret; "" when there is
// none it would read. Gemini CLI searches a repository with git grep
// (or ripgrep), which skip what git ignores unless told not to.
func (s *Server) unsearchable(ctx context.Context, n native, st *session.State) string {
	dir := n.paths[0]
	hidden, known := hiddenBelow(dir, st, s.cfg.Runner.Exposure())
	switch {
	case !known:
		return "files Gatehouse could not check"
	case len(hidden) > 0 && (n.searchIgnored || !ignoredByGit(ctx, dir, hidden)):
		return filepath.Base(hidden[0]) + ", a file Gatehouse hides from the agent"
	case s.holders == nil:
		return ""
	}
	held, err := s.holders.Below(ctx, dir)
	switch {
	case err != nil:
		return "files Gatehouse could not check for secrets"
	case len(held) > 0:
		rel, _ := filepath.Rel(dir, held[0])
		return rel + ", whose content holds a secret (a token, a key)"
	}
	return ""
}

// maxHolders bounds the files a search leaves out by path: each is one
// more glob on the agent's command line.
const maxHolders = 500

// searchExclusions are the globs that keep a search of dir from the
// files the sandbox hides (by name) and from those whose content holds
// a secret (by path, below dir); or, when those cannot be known, why the
// search is refused.
func (s *Server) searchExclusions(ctx context.Context, dir string) (globs, held []string, refusal string) {
	globs = protect.SecretSearchGlobs()
	if s.holders == nil {
		return globs, nil, ""
	}
	abs, err := s.holders.Below(ctx, dir)
	switch {
	case errors.Is(err, secretholders.ErrTooMany), err == nil && len(abs) > maxHolders:
		return nil, nil, fmt.Sprintf("Gatehouse blocked this search: %s holds more files than Gatehouse can check for secrets before the agent's own search prints their lines. Search a folder below it, or with rg or grep through Bash (Gatehouse runs it in its sandbox and redacts what it prints).", dir)
	case err != nil:
		s.cfg.Logger.Warn("find the files holding secrets for a search", "dir", dir, "err", err)
		return nil, nil, fmt.Sprintf("Gatehouse blocked this search: it could not check %s for secrets before the agent's own search prints their lines. Search with rg or grep through Bash instead (Gatehouse runs it in its sandbox and redacts what it prints).", dir)
	}
	for _, p := range abs {
		if rel, err := filepath.Rel(dir, p); err == nil {
			globs = append(globs, "**/"+literalGlob(filepath.ToSlash(rel)))
			held = append(held, rel)
		}
	}
	return globs, held, ""
}

// leftOutNote tells the model which files a search left out, and how to
// read one.
func leftOutNote(held []string) string {
	const named = 20
	list := strings.Join(held[:min(len(held), named)], ", ")
	if len(held) > named {
		list += fmt.Sprintf(" and %d more", len(held)-named)
	}
	return "Gatehouse left these files out of this search, because what they hold includes secrets (a token, a key) that this search would show unredacted: " + list +
		". Read one with Read to see it with its secrets redacted, or search them with rg or grep through Bash, which Gatehouse runs in its sandbox and redacts."
}

// literalGlob matches path alone, as one word of Claude Code's glob
// member: glob characters escaped, and a space or comma (where Claude
// Code splits the member) matched by "?".
func literalGlob(path string) string {
	var b strings.Builder
	for _, r := range path {
		switch {
		case strings.ContainsRune(`\*?[]{}!`, r):
			b.WriteRune('\\')
			b.WriteRune(r)
		case r == ' ' || r == ',' || r == '\t':
			b.WriteRune('?')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// hiddenBelow are the files the sandbox hides at or below dir (on a
// workspace's secret list); known is false when what dir holds cannot be
// listed (too many files, a directory that cannot be read).
func hiddenBelow(dir string, st *session.State, e protect.Exposure) (hidden []string, known bool) {
	roots := []string{}
	for _, ws := range st.Workspaces {
		if sandbox.Within(dir, ws) || sandbox.Within(ws, dir) {
			roots = append(roots, ws)
		}
	}
	if len(roots) == 0 {
		roots = []string{dir} // outside every workspace: its own list
	}
	for _, r := range roots {
		found, err := protect.Secrets.Find(r, e)
		if err != nil {
			return nil, false
		}
		for _, d := range found.Dirs {
			if sandbox.Within(d, dir) {
				return nil, false
			}
		}
		for _, f := range found.Files {
			if sandbox.Within(f, dir) {
				hidden = append(hidden, f)
			}
		}
	}
	return hidden, true
}

// ignoredByGit: dir is in a git work tree that ignores every one of
// files, so a search that honours .gitignore never opens them. False on
// any doubt (no repository, a tracked file, git failing).
func ignoredByGit(ctx context.Context, dir string, files []string) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	// Nothing of the repository's config may run a program here.
	c := exec.CommandContext(ctx, "git", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
		"-C", dir, "check-ignore", "--stdin", "-z")
	c.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	c.Stdin = strings.NewReader(strings.Join(files, "\x00") + "\x00")
	out, err := c.Output()
	return err == nil && strings.Count(string(out), "\x00") == len(files)
}

var (
	errNotObject = errors.New("the tool input is not an object")
	errNotGlob   = errors.New("its glob is not a string")
	errNotList   = errors.New("its exclusions are not a list of strings")
)

// withExclusions copies a search's input with "!glob" for each of globs
// after the globs it names in member key (Claude Code splits that member
// at spaces and commas outside braces; none of globs holds either).
func withExclusions(input json.RawMessage, key string, globs []string) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(input, &m); err != nil {
		return nil, errNotObject
	}
	var own string
	if raw, ok := m[key]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &own); err != nil {
			return nil, errNotGlob
		}
	}
	parts := []string{}
	if own = strings.TrimSpace(own); own != "" {
		parts = append(parts, own)
	}
	for _, g := range globs {
		parts = append(parts, "!"+g)
	}
	return withMember(m, key, strings.Join(parts, " "))
}

// withExcludeList copies a read's input with each of globs, at any
// depth, added to the list of exclusions in member key.
func withExcludeList(input json.RawMessage, key string, globs []string) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(input, &m); err != nil {
		return nil, errNotObject
	}
	var list []string
	if raw, ok := m[key]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, errNotList
		}
	}
	for _, g := range globs {
		if !strings.HasPrefix(g, "**/") {
			g = "**/" + g
		}
		// A directory's name leaves out what it holds.
		list = append(list, g, g+"/**")
	}
	return withMember(m, key, list)
}

func withMember(m map[string]json.RawMessage, key string, v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	m[key] = b
	return json.Marshal(m)
}
