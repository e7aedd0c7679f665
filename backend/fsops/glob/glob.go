// Package glob matches slash-separated paths against gitignore-style
// wildcards: "*" and "?" stay within one path element, "**" spans
// directories, "[a-z]" and "[!x]" are classes, "\" escapes.
//
// A pattern without a slash matches the last element of a path at any
// depth ("*.go"); a pattern with a slash matches the whole path relative
// to where it applies ("cmd/*.go", "**/*.ts").
package glob

import (
	"fmt"
	"regexp"
	"strings"
)

// MaxLen bounds a pattern; patterns come from agents and ignore files.
const MaxLen = 4096

// Pattern is a compiled glob.
type Pattern struct {
	re       *regexp.Regexp
	anchored bool
}

// Compile translates pattern into a regular expression. A leading "/" only
// anchors the pattern.
func Compile(pattern string) (*Pattern, error) {
	if pattern == "" {
		return nil, fmt.Errorf("glob pattern is empty")
	}
	if len(pattern) > MaxLen {
		return nil, fmt.Errorf("glob pattern is %d bytes long; the limit is %d", len(pattern), MaxLen)
	}
	anchored := strings.Contains(strings.TrimSuffix(pattern, "/"), "/")
	p := strings.TrimPrefix(pattern, "/")
	re, err := regexp.Compile("^" + translate(p) + "$")
	if err != nil {
		return nil, fmt.Errorf("glob pattern %q cannot be used: %w", pattern, err)
	}
	return &Pattern{re: re, anchored: anchored}, nil
}

// Anchored reports whether the pattern matches whole paths rather than
// the last element.
func (p *Pattern) Anchored() bool { return p.anchored }

// Match reports whether rel (slash-separated, no leading slash) matches.
func (p *Pattern) Match(rel string) bool {
	if !p.anchored {
		if i := strings.LastIndexByte(rel, '/'); i >= 0 {
			rel = rel[i+1:]
		}
	}
	return p.re.MatchString(rel)
}

func translate(p string) string {
	var sb strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '*':
			if i+1 < len(p) && p[i+1] == '*' {
				atStart := i == 0 || p[i-1] == '/'
				j := i + 2
				switch {
				case atStart && j == len(p):
					// "**" alone or trailing "/**": everything below.
					sb.WriteString(".*")
					i = j - 1
					continue
				case atStart && p[j] == '/':
					// "**/": zero or more directories.
					sb.WriteString("(?:.*/)?")
					i = j
					continue
				}
				// Any other run of stars is an ordinary star.
				for i+1 < len(p) && p[i+1] == '*' {
					i++
				}
			}
			sb.WriteString("[^/]*")
		case '?':
			sb.WriteString("[^/]")
		case '[':
			if cls, n := class(p[i:]); n > 0 {
				sb.WriteString(cls)
				i += n - 1
			} else {
				sb.WriteString(`\[`)
			}
		case '\\':
			if i+1 < len(p) {
				i++
				sb.WriteString(regexp.QuoteMeta(p[i : i+1]))
			} else {
				sb.WriteString(`\\`)
			}
		default:
			sb.WriteString(regexp.QuoteMeta(p[i : i+1]))
		}
	}
	return sb.String()
}

// class translates a bracket expression at the start of p, returning the
// regexp and bytes consumed, or 0 when the bracket is unterminated (then
// it is a literal "[").
func class(p string) (string, int) {
	var sb strings.Builder
	sb.WriteString("[")
	i := 1
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		sb.WriteString("^/")
		i++
	}
	first := true
	for ; i < len(p); i++ {
		c := p[i]
		switch {
		case c == ']' && !first:
			sb.WriteString("]")
			return sb.String(), i + 1
		case c == '\\' && i+1 < len(p):
			i++
			sb.WriteString(regexp.QuoteMeta(p[i : i+1]))
		case c == '-':
			sb.WriteByte('-')
		case c == '[' || c == ']' || c == '^' || c == '\\':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		default:
			sb.WriteByte(c)
		}
		first = false
	}
	return "", 0
}
