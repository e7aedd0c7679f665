// Package gitignore decides which paths a .gitignore hierarchy hides:
// negation with "!", directory-only patterns ending in "/", patterns
// anchored by a slash, "**", and deeper files overriding shallower ones.
// Like git, a file inside an ignored directory stays hidden whatever a
// later rule says, because the walk never enters that directory.
package gitignore

import (
	"bytes"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/fsops/glob"
)

// MaxFileSize bounds how much of one ignore file is read.
const MaxFileSize = 1 << 20

type rule struct {
	pat     *glob.Pattern
	negate  bool
	dirOnly bool
}

// Matcher is an immutable stack of ignore files; Add returns a new one, so
// sibling directories of a walk can share their parents' rules.
type Matcher struct {
	parent *Matcher
	base   string // directory of the ignore file, relative to the walk root; "" for the root
	rules  []rule
}

// Add layers the ignore file found in directory base (slash-separated,
// relative to the walk root, "" or "." for the root) over m. A nil m is
// an empty matcher.
func (m *Matcher) Add(base string, data []byte) *Matcher {
	rules := parse(data)
	if len(rules) == 0 {
		return m
	}
	if base == "." {
		base = ""
	}
	return &Matcher{parent: m, base: base, rules: rules}
}

// Ignored reports whether rel (slash-separated, relative to the walk root)
// is hidden. isDir matters for patterns ending in "/".
func (m *Matcher) Ignored(rel string, isDir bool) bool {
	for l := m; l != nil; l = l.parent {
		sub := rel
		if l.base != "" {
			if !strings.HasPrefix(rel, l.base+"/") {
				continue
			}
			sub = rel[len(l.base)+1:]
		}
		// The last matching line of the deepest file decides.
		for i := len(l.rules) - 1; i >= 0; i-- {
			r := l.rules[i]
			if r.dirOnly && !isDir {
				continue
			}
			if r.pat.Match(sub) {
				return !r.negate
			}
		}
	}
	return false
}

func parse(data []byte) []rule {
	if len(data) > MaxFileSize {
		data = data[:MaxFileSize]
	}
	var rules []rule
	for _, raw := range bytes.Split(data, []byte("\n")) {
		line := strings.TrimSuffix(string(raw), "\r")
		line = trimTrailingSpaces(line)
		if line == "" || line[0] == '#' {
			continue
		}
		var r rule
		if line[0] == '!' {
			r.negate = true
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		pat, err := glob.Compile(line)
		if err != nil {
			continue // git ignores lines it cannot use, and so do we
		}
		r.pat = pat
		rules = append(rules, r)
	}
	return rules
}

// trimTrailingSpaces drops unescaped trailing spaces, as git does.
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	return s
}
