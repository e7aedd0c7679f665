package audit

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Canonical JSON, the byte form that is hashed. It is defined here, not by
// encoding/json, so that it never changes with a Go release:
//
//   - No whitespace outside strings.
//   - Object members sorted by key, comparing the keys' UTF-8 bytes.
//     Duplicate keys are rejected rather than resolved.
//   - Strings are written as raw UTF-8 except: '"' as \", '\' as \\,
//     U+0008 \b, U+0009 \t, U+000A \n, U+000C \f, U+000D \r, and the other
//     code points below U+0020 as \u00xx with lowercase hex. Invalid UTF-8 and
//     lone surrogate escapes are rejected.
//   - Numbers written as integers (optional '-', digits, no fraction or
//     exponent) keep their digits exactly, so large IDs survive; "-0" becomes
//     "0". Any other number is read as an IEEE-754 double and written with
//     strconv.FormatFloat(x, 'g', -1, 64) ("-0" again becomes "0"); numbers
//     out of double range are rejected.
//   - true, false, null as themselves.
//
// Canonicalising canonical JSON returns it unchanged.

// maxDepth bounds nesting so hostile payloads cannot exhaust the stack.
const maxDepth = 512

var errNotJSON = errors.New("payload is not valid JSON")

// Canonicalize returns the canonical form of the JSON text in.
func Canonicalize(in []byte) ([]byte, error) {
	p := canonParser{in: in}
	p.skipSpace()
	out, err := p.value(make([]byte, 0, len(in)), 0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.in) {
		return nil, p.errorf("unexpected data after the JSON value")
	}
	return out, nil
}

type canonParser struct {
	in  []byte
	pos int
}

func (p *canonParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s at byte %d", errNotJSON, fmt.Sprintf(format, args...), p.pos)
}

func (p *canonParser) skipSpace() {
	for p.pos < len(p.in) {
		switch p.in[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *canonParser) value(dst []byte, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, p.errorf("nesting deeper than %d", maxDepth)
	}
	if p.pos >= len(p.in) {
		return nil, p.errorf("unexpected end")
	}
	switch c := p.in[p.pos]; {
	case c == '{':
		return p.object(dst, depth)
	case c == '[':
		return p.array(dst, depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return appendCanonicalString(dst, s), nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number(dst)
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if len(p.in)-p.pos >= len(lit) && string(p.in[p.pos:p.pos+len(lit)]) == lit {
				p.pos += len(lit)
				return append(dst, lit...), nil
			}
		}
		// The offending byte is not quoted: payloads may hold secrets.
		return nil, p.errorf("unexpected character")
	}
}

type member struct {
	key string
	val []byte
}

func (p *canonParser) object(dst []byte, depth int) ([]byte, error) {
	p.pos++ // '{'
	var members []member
	p.skipSpace()
	if p.pos < len(p.in) && p.in[p.pos] == '}' {
		p.pos++
		return append(dst, "{}"...), nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.in) || p.in[p.pos] != '"' {
			return nil, p.errorf("expected an object key")
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.pos >= len(p.in) || p.in[p.pos] != ':' {
			return nil, p.errorf("expected ':'")
		}
		p.pos++
		p.skipSpace()
		val, err := p.value(nil, depth+1)
		if err != nil {
			return nil, err
		}
		members = append(members, member{key, val})
		more, err := p.more('}', "object")
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
	}
	sort.Slice(members, func(i, j int) bool { return members[i].key < members[j].key })
	dst = append(dst, '{')
	for i, m := range members {
		if i > 0 {
			if m.key == members[i-1].key {
				return nil, fmt.Errorf("%w: an object has the same key twice", errNotJSON)
			}
			dst = append(dst, ',')
		}
		dst = appendCanonicalString(dst, m.key)
		dst = append(dst, ':')
		dst = append(dst, m.val...)
	}
	return append(dst, '}'), nil
}

func (p *canonParser) array(dst []byte, depth int) ([]byte, error) {
	p.pos++ // '['
	dst = append(dst, '[')
	p.skipSpace()
	if p.pos < len(p.in) && p.in[p.pos] == ']' {
		p.pos++
		return append(dst, ']'), nil
	}
	for first := true; ; first = false {
		if !first {
			dst = append(dst, ',')
		}
		p.skipSpace()
		var err error
		if dst, err = p.value(dst, depth+1); err != nil {
			return nil, err
		}
		more, err := p.more(']', "array")
		if err != nil {
			return nil, err
		}
		if !more {
			return append(dst, ']'), nil
		}
	}
}

// more reads what follows an object member or an array element: a ','
// (true: another follows) or the closing bracket (false).
func (p *canonParser) more(closing byte, in string) (bool, error) {
	p.skipSpace()
	if p.pos >= len(p.in) {
		return false, p.errorf("unexpected end in %s", in)
	}
	switch p.in[p.pos] {
	case ',':
		p.pos++
		return true, nil
	case closing:
		p.pos++
		return false, nil
	}
	return false, p.errorf("expected ',' or '%c'", closing)
}

// str parses a JSON string starting at '"' and returns its decoded value.
func (p *canonParser) str() (string, error) {
	p.pos++ // opening quote
	start := p.pos
	// Fast path: no escapes.
	for p.pos < len(p.in) {
		c := p.in[p.pos]
		if c == '"' {
			raw := p.in[start:p.pos]
			if !utf8.Valid(raw) {
				return "", p.errorf("string is not valid UTF-8")
			}
			p.pos++
			return string(raw), nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", p.errorf("control character in string")
		}
		p.pos++
	}
	buf := append([]byte(nil), p.in[start:p.pos]...)
	for p.pos < len(p.in) {
		c := p.in[p.pos]
		switch {
		case c == '"':
			p.pos++
			if !utf8.Valid(buf) {
				return "", p.errorf("string is not valid UTF-8")
			}
			return string(buf), nil
		case c < 0x20:
			return "", p.errorf("control character in string")
		case c != '\\':
			buf = append(buf, c)
			p.pos++
			continue
		}
		p.pos++
		if p.pos >= len(p.in) {
			break
		}
		esc := p.in[p.pos]
		p.pos++
		switch esc {
		case '"', '\\', '/':
			buf = append(buf, esc)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, err := p.hex4()
			if err != nil {
				return "", err
			}
			if utf16.IsSurrogate(r) {
				if r >= 0xDC00 || p.pos+1 >= len(p.in) || p.in[p.pos] != '\\' || p.in[p.pos+1] != 'u' {
					return "", p.errorf("unpaired surrogate escape")
				}
				p.pos += 2
				r2, err := p.hex4()
				if err != nil {
					return "", err
				}
				r = utf16.DecodeRune(r, r2)
				if r == utf8.RuneError {
					return "", p.errorf("invalid surrogate pair")
				}
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", p.errorf("invalid escape \\%c", esc)
		}
	}
	return "", p.errorf("unterminated string")
}

func (p *canonParser) hex4() (rune, error) {
	if len(p.in)-p.pos < 4 {
		return 0, p.errorf("short \\u escape")
	}
	v, err := strconv.ParseUint(string(p.in[p.pos:p.pos+4]), 16, 32)
	if err != nil {
		return 0, p.errorf("invalid \\u escape")
	}
	p.pos += 4
	return rune(v), nil
}

// digits reads a run of decimal digits and says how many there were.
func (p *canonParser) digits() int {
	start := p.pos
	for p.pos < len(p.in) && p.in[p.pos] >= '0' && p.in[p.pos] <= '9' {
		p.pos++
	}
	return p.pos - start
}

func (p *canonParser) number(dst []byte) ([]byte, error) {
	start := p.pos
	if p.in[p.pos] == '-' {
		p.pos++
	}
	digits := p.pos
	if p.pos < len(p.in) && p.in[p.pos] == '0' {
		p.pos++
	} else {
		p.digits()
	}
	if p.pos == digits {
		return nil, p.errorf("invalid number")
	}
	integer := true
	if p.pos < len(p.in) && p.in[p.pos] == '.' {
		integer = false
		p.pos++
		if p.digits() == 0 {
			return nil, p.errorf("invalid number")
		}
	}
	if p.pos < len(p.in) && (p.in[p.pos] == 'e' || p.in[p.pos] == 'E') {
		integer = false
		p.pos++
		if p.pos < len(p.in) && (p.in[p.pos] == '+' || p.in[p.pos] == '-') {
			p.pos++
		}
		if p.digits() == 0 {
			return nil, p.errorf("invalid number")
		}
	}
	lit := p.in[start:p.pos]
	if integer {
		if string(lit) == "-0" {
			return append(dst, '0'), nil
		}
		return append(dst, lit...), nil
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		return nil, p.errorf("number out of range")
	}
	if f == 0 {
		return append(dst, '0'), nil
	}
	return strconv.AppendFloat(dst, f, 'g', -1, 64), nil
}

const hexDigits = "0123456789abcdef"

// shortEscapes holds the letter of each two-character escape canonical
// JSON writes ('"' as \", U+0008 as \b, …); the other bytes it escapes
// (those below U+0020) have none and are written \u00xx.
var shortEscapes = [...]byte{'"': '"', '\\': '\\', '\b': 'b', '\t': 't', '\n': 'n', '\f': 'f', '\r': 'r'}

// AppendJSONString appends s as a canonical JSON string, each byte of it
// that is not UTF-8 first replaced with U+FFFD (as encoding/json does), so
// that any Go string makes valid JSON. Export's hand-written encoders use it.
func AppendJSONString(dst []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = validUTF8(s)
	}
	return appendCanonicalString(dst, s)
}

// appendCanonicalString writes s (valid UTF-8) as a canonical JSON string.
func appendCanonicalString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		if e := shortEscapes[c]; e != 0 {
			dst = append(dst, '\\', e)
		} else {
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
