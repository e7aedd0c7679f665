package policy

import (
	"fmt"
	"path"
	"strings"
)

// glob is a compiled path pattern. Segments are matched with path.Match; a
// segment of exactly "**" matches zero or more whole segments.
type glob struct {
	raw  string
	home bool // pattern was ~/…: segs are relative to Session.Home
	segs []string
	// literal is the length of the pattern before its first wildcard, used
	// for specificity and for deciding whether a rule names a path.
	literal string
}

// compileGlob compiles pattern. Relative patterns are joined to base when base
// is set (workspace files); otherwise they must start with ** to match
// anywhere.
func compileGlob(pattern, base string) (glob, error) {
	p := strings.TrimSpace(pattern)
	g := glob{raw: p}
	switch {
	case p == "":
		return g, fmt.Errorf("path pattern is empty")
	case p == "~" || strings.HasPrefix(p, "~/"):
		g.home = true
		p = strings.TrimPrefix(strings.TrimPrefix(p, "~"), "/")
	case strings.HasPrefix(p, "/"):
		p = strings.TrimPrefix(p, "/")
	case base != "":
		p = strings.TrimPrefix(path.Join(base, p), "/")
	case strings.HasPrefix(p, "**"):
		// anchored at / with a leading ** it matches anywhere
	default:
		return g, fmt.Errorf("path pattern %q must be absolute, start with ~/ or start with **", pattern)
	}
	if p != "" {
		g.segs = strings.Split(p, "/")
	}
	for _, s := range g.segs {
		if s == "" {
			return g, fmt.Errorf("path pattern %q has an empty segment", pattern)
		}
		if _, err := path.Match(s, ""); err != nil {
			return g, fmt.Errorf("path pattern %q is malformed: %w", pattern, err)
		}
	}
	g.literal = literalPrefix(g.raw)
	return g, nil
}

// literalPrefix returns s up to its first unescaped wildcard.
func literalPrefix(s string) string {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return s[:i]
		}
	}
	return s
}

// escapeGlob quotes the wildcard characters of a literal path.
func escapeGlob(s string) string {
	if !strings.ContainsAny(s, `*?[\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[', '\\':
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// match reports whether the absolute, cleaned path p matches.
func (g *glob) match(p, home string) bool {
	if g.home {
		if home == "" || home == "/" {
			return false
		}
		switch {
		case p == home:
			p = ""
		case strings.HasPrefix(p, home) && p[len(home)] == '/':
			p = p[len(home)+1:]
		default:
			return false
		}
	} else {
		if !strings.HasPrefix(p, "/") {
			return false
		}
		p = p[1:]
	}
	return matchSegs(g.segs, p)
}

// matchSegs matches pattern segments against a slash-separated path without
// a leading slash. It allocates nothing.
func matchSegs(pat []string, p string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			pat = pat[1:]
			if len(pat) == 0 {
				return true
			}
			for {
				if matchSegs(pat, p) {
					return true
				}
				i := strings.IndexByte(p, '/')
				if i < 0 {
					return false
				}
				p = p[i+1:]
			}
		}
		if p == "" {
			return false
		}
		seg, rest := p, ""
		if i := strings.IndexByte(p, '/'); i >= 0 {
			seg, rest = p[:i], p[i+1:]
		}
		if ok, _ := path.Match(pat[0], seg); !ok {
			return false
		}
		pat, p = pat[1:], rest
	}
	return p == ""
}

// within reports whether p is root or below it.
func within(p, root string) bool {
	if root == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == root || (strings.HasPrefix(p, root) && len(p) > len(root) && p[len(root)] == '/')
}
