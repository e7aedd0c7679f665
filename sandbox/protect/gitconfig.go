package protect

import (
	"errors"
	"fmt"
	"strings"
)

// A small, strict reader of git's config syntax, for the few keys that
// decide which workspace paths git runs or reads as configuration
// (core.hooksPath, core.worktree, include.path, includeIf.*.path). It
// follows git's own parser (config.c) rule for rule, so a file git
// accepts yields the values git would see, and a file git rejects is an
// error here too: git refuses to run with it, and Gatehouse says so
// rather than guess.

// gitVar is one assignment: the full lower-cased section (with the
// subsection as written) and key, and the value after unquoting.
// HasValue is false for a bare "key" line, which git reads as true.
type gitVar struct {
	Name     string // section[.subsection].key, section and key lower-cased
	Value    string
	HasValue bool
	Line     int
}

// errGitConfig marks a file git itself would refuse to parse.
var errGitConfig = errors.New("bad git config")

// parseGitConfig returns every assignment in src, in order.
func parseGitConfig(src []byte) ([]gitVar, error) {
	p := gitParser{src: src, line: 1}
	// A UTF-8 byte order mark at the start is skipped, as git does.
	if strings.HasPrefix(string(src), "\xef\xbb\xbf") {
		p.pos = 3
	}
	var (
		out     []gitVar
		section string
		comment bool
	)
	for {
		c := p.next()
		if c == '\n' {
			if p.eof {
				return out, nil
			}
			comment = false
			continue
		}
		if comment || isSpace(c) {
			continue
		}
		if c == '#' || c == ';' {
			comment = true
			continue
		}
		if c == '[' {
			s, err := p.sectionHeader()
			if err != nil {
				return nil, err
			}
			section = s
			continue
		}
		if !isAlpha(c) {
			return nil, p.errorf("a line must start with a key or [section]")
		}
		v, err := p.assignment(c)
		if err != nil {
			return nil, err
		}
		if section != "" { // git takes a key before any section as it is
			v.Name = section + "." + v.Name
		}
		out = append(out, v)
	}
}

type gitParser struct {
	src  []byte
	pos  int
	line int
	eof  bool
}

// next returns the next byte, "\r\n" folded to '\n', and '\n' with eof
// set at the end of input (git's get_next_char).
func (p *gitParser) next() byte {
	if p.pos >= len(p.src) {
		p.eof = true
		return '\n'
	}
	c := p.src[p.pos]
	p.pos++
	if c == '\r' && p.pos < len(p.src) && p.src[p.pos] == '\n' {
		p.pos++
		c = '\n'
	}
	if c == '\n' {
		p.line++
	}
	return c
}

func (p *gitParser) errorf(format string, a ...any) error {
	line := p.line
	if p.pos > 0 && p.pos <= len(p.src) && p.src[p.pos-1] == '\n' {
		line-- // the newline that ended the bad line was consumed
	}
	return fmt.Errorf("line %d: %s: %w", line, fmt.Sprintf(format, a...), errGitConfig)
}

// sectionHeader reads what follows '[': "core]" or `remote "origin"]`
// or the old "branch.main]" form (lower-cased whole, as git does).
func (p *gitParser) sectionHeader() (string, error) {
	var name []byte
	for {
		c := p.next()
		switch {
		case p.eof:
			return "", p.errorf("unterminated section header")
		case c == ']':
			if len(name) == 0 {
				return "", p.errorf("empty section name")
			}
			return string(name), nil
		case isSpace(c):
			if c == '\n' {
				return "", p.errorf("unterminated section header")
			}
			return p.subsection(name)
		case !isKeyChar(c) && c != '.':
			return "", p.errorf("bad character %q in a section name", c)
		}
		name = append(name, lower(c))
	}
}

// subsection reads ` "sub"]` after a section name: any bytes, with a
// backslash taking the next byte literally, and nothing between the
// closing quote and ']'.
func (p *gitParser) subsection(section []byte) (string, error) {
	c := p.next()
	for isSpace(c) && c != '\n' {
		c = p.next()
	}
	if c != '"' {
		return "", p.errorf("a subsection name must be in double quotes")
	}
	name := append(section, '.')
	for {
		c = p.next()
		if c == '\n' {
			return "", p.errorf("unterminated subsection name")
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			if c = p.next(); c == '\n' {
				return "", p.errorf("unterminated subsection name")
			}
		}
		name = append(name, c)
	}
	if p.next() != ']' {
		return "", p.errorf("expected ] after the subsection name")
	}
	return string(name), nil
}

// assignment reads "key", "key = value" or "key=value" starting at the
// key's first letter c, up to and including the end of its line (or of
// its continuation lines).
func (p *gitParser) assignment(c byte) (gitVar, error) {
	line := p.line
	key := []byte{lower(c)}
	for {
		c = p.next()
		if p.eof || !isKeyChar(c) {
			break
		}
		key = append(key, lower(c))
	}
	for c == ' ' || c == '\t' {
		c = p.next()
	}
	v := gitVar{Name: string(key), Line: line}
	if c == '\n' {
		return v, nil
	}
	if c != '=' {
		return v, p.errorf("expected = after %q", key)
	}
	val, err := p.value()
	if err != nil {
		return v, err
	}
	v.Value, v.HasValue = val, true
	return v, nil
}

// value reads a value after '=' (git's parse_value): surrounding
// whitespace dropped, each inner whitespace byte outside quotes kept as
// one space, double quotes removed, # and ; starting a comment outside
// quotes, and the escapes \\ \" \n \t \b and backslash-newline
// (continuation); any other escape is an error.
func (p *gitParser) value() (string, error) {
	var (
		b       []byte
		quote   bool
		comment bool
		spaces  int
	)
	for {
		c := p.next()
		if c == '\n' {
			if quote {
				return "", p.errorf("unterminated quoted value")
			}
			return string(b), nil
		}
		if comment {
			continue
		}
		if isSpace(c) && !quote {
			if len(b) > 0 {
				spaces++
			}
			continue
		}
		if !quote && (c == '#' || c == ';') {
			comment = true
			continue
		}
		for ; spaces > 0; spaces-- {
			b = append(b, ' ')
		}
		switch c {
		case '\\':
			e := p.next()
			switch e {
			case '\n':
				continue // a continuation line (or the end of the file, as git allows)
			case 't':
				e = '\t'
			case 'b':
				e = '\b'
			case 'n':
				e = '\n'
			case '\\', '"':
			default:
				return "", p.errorf("unknown escape \\%c in a value", e)
			}
			b = append(b, e)
		case '"':
			quote = !quote
		default:
			b = append(b, c)
		}
	}
}

// isSpace is C's isspace in the C locale, as git uses it.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isKeyChar(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' || c == '-' }

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
