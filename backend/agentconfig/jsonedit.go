package agentconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// jsonDoc edits a JSON (or JSON-with-comments) document in place, as text:
// only the members Gatehouse adds or removes change, so the person's own
// formatting, key order and comments survive an install and its uninstall.
type jsonDoc struct {
	src      []byte
	comments bool // Gemini's settings.json allows // and /* */ comments
}

// errSyntax is a document that is not valid JSON; Line is 1-based.
type errSyntax struct {
	Line int
	Msg  string
}

func (e *errSyntax) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// parseJSONDoc checks src and returns an editable document. An empty (or
// all-whitespace) file counts as an empty object.
func parseJSONDoc(src []byte, comments bool) (*jsonDoc, error) {
	d := &jsonDoc{src: src, comments: comments}
	if len(bytes.TrimSpace(src)) == 0 {
		return d, nil
	}
	plain := src
	if comments {
		var err error
		if plain, err = blankComments(src); err != nil {
			return nil, err
		}
	}
	var v any
	if err := json.Unmarshal(plain, &v); err != nil {
		var se *json.SyntaxError
		line := 1
		if errors.As(err, &se) {
			line = lineOf(plain, int(se.Offset))
		}
		return nil, &errSyntax{Line: line, Msg: err.Error()}
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, &errSyntax{Line: 1, Msg: "the top level is not a JSON object"}
	}
	return d, nil
}

func lineOf(b []byte, off int) int {
	if off > len(b) {
		off = len(b)
	}
	return 1 + bytes.Count(b[:off], []byte("\n"))
}

// blankComments replaces comments with spaces (newlines kept), so offsets
// and line numbers stay those of the original text.
func blankComments(src []byte) ([]byte, error) {
	out := bytes.Clone(src)
	for i := 0; i < len(out); i++ {
		switch {
		case out[i] == '"':
			j, err := stringEnd(out, i)
			if err != nil {
				return nil, err
			}
			i = j - 1
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '*':
			end := bytes.Index(out[i+2:], []byte("*/"))
			if end < 0 {
				return nil, &errSyntax{Line: lineOf(src, i), Msg: "unterminated /* comment"}
			}
			for k := i; k < i+2+end+2; k++ {
				if out[k] != '\n' {
					out[k] = ' '
				}
			}
			i += 2 + end + 1
		}
	}
	return out, nil
}

// stringEnd returns the index just past the string literal starting at i.
func stringEnd(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, &errSyntax{Line: lineOf(b, i), Msg: "unterminated string"}
}

// skipSpace skips whitespace and, where allowed, comments.
func (d *jsonDoc) skipSpace(i int) int {
	b := d.src
	for i < len(b) {
		switch {
		case b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r':
			i++
		case d.comments && b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
		case d.comments && b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			end := bytes.Index(b[i+2:], []byte("*/"))
			if end < 0 {
				return len(b)
			}
			i += 2 + end + 2
		default:
			return i
		}
	}
	return i
}

// valueEnd returns the index just past the value starting at i (the
// document was validated, so the scan can be simple).
func (d *jsonDoc) valueEnd(i int) int {
	b := d.src
	switch b[i] {
	case '"':
		j, _ := stringEnd(b, i)
		return j
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				k, _ := stringEnd(b, j)
				j = k - 1
			case '/':
				if d.comments {
					if k := d.skipSpace(j); k > j {
						j = k - 1
					}
				}
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	default:
		j := i
		for j < len(b) && !strings.ContainsRune(" \t\r\n,]}/", rune(b[j])) {
			j++
		}
		return j
	}
}

// member is one key/value pair of an object, as byte offsets.
type member struct {
	keyStart, valStart, valEnd int
	key                        string
}

// members lists the members of the object starting at open ('{').
func (d *jsonDoc) members(open int) (ms []member, closeAt int) {
	i := d.skipSpace(open + 1)
	for i < len(d.src) && d.src[i] != '}' {
		kEnd, _ := stringEnd(d.src, i)
		var key string
		_ = json.Unmarshal(d.src[i:kEnd], &key)
		colon := d.skipSpace(kEnd)
		vs := d.skipSpace(colon + 1)
		ve := d.valueEnd(vs)
		ms = append(ms, member{keyStart: i, valStart: vs, valEnd: ve, key: key})
		i = d.skipSpace(ve)
		if i < len(d.src) && d.src[i] == ',' {
			i = d.skipSpace(i + 1)
		}
	}
	return ms, i
}

// elements lists the [start,end) spans of the array starting at open.
func (d *jsonDoc) elements(open int) (es [][2]int, closeAt int) {
	i := d.skipSpace(open + 1)
	for i < len(d.src) && d.src[i] != ']' {
		e := d.valueEnd(i)
		es = append(es, [2]int{i, e})
		i = d.skipSpace(e)
		if i < len(d.src) && d.src[i] == ',' {
			i = d.skipSpace(i + 1)
		}
	}
	return es, i
}

// lookup returns the value span at path (object keys), or ok=false.
func (d *jsonDoc) lookup(path ...string) (start, end int, ok bool) {
	i := d.skipSpace(0)
	if i >= len(d.src) {
		return 0, 0, false
	}
	start, end = i, d.valueEnd(i)
	for _, k := range path {
		if d.src[start] != '{' {
			return 0, 0, false
		}
		ms, _ := d.members(start)
		found := false
		for _, m := range ms {
			if m.key == k {
				start, end, found = m.valStart, m.valEnd, true
			}
		}
		if !found {
			return 0, 0, false
		}
	}
	return start, end, true
}

// raw returns the value at path decoded into v.
func (d *jsonDoc) decode(v any, path ...string) bool {
	s, e, ok := d.lookup(path...)
	if !ok {
		return false
	}
	b := d.src[s:e]
	if d.comments {
		b, _ = blankComments(b)
	}
	return json.Unmarshal(b, v) == nil
}

// indentUnit guesses the document's indentation (two spaces by default).
func (d *jsonDoc) indentUnit() string {
	for _, line := range strings.Split(string(d.src), "\n")[1:] {
		t := strings.TrimLeft(line, " \t")
		if t != "" && len(t) < len(line) {
			return line[:len(line)-len(t)]
		}
	}
	return "  "
}

// lineIndent is the whitespace that starts the line holding offset i.
func (d *jsonDoc) lineIndent(i int) string {
	s := bytes.LastIndexByte(d.src[:i], '\n') + 1
	e := s
	for e < len(d.src) && (d.src[e] == ' ' || d.src[e] == '\t') {
		e++
	}
	return string(d.src[s:e])
}

func (d *jsonDoc) splice(s, e int, with string) {
	out := make([]byte, 0, len(d.src)-(e-s)+len(with))
	out = append(out, d.src[:s]...)
	out = append(out, with...)
	d.src = append(out, d.src[e:]...)
}

// render marshals v as indented JSON whose continuation lines start at
// indent.
func render(v any, indent, unit string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(indent, unit)
	_ = enc.Encode(v)
	return strings.TrimRight(buf.String(), "\n")
}

// ensureRoot makes an empty document into "{}".
func (d *jsonDoc) ensureRoot() {
	if len(bytes.TrimSpace(d.src)) == 0 {
		d.src = []byte("{}\n")
	}
}

// set puts key=v into the object at path, creating the objects on the way;
// an existing key's value is replaced.
func (d *jsonDoc) set(path []string, key string, v any) {
	d.ensureRoot()
	for n := 0; n <= len(path); n++ {
		if _, _, ok := d.lookup(path[:n]...); !ok {
			d.set(path[:n-1], path[n-1], map[string]any{})
		}
	}
	objStart, _, _ := d.lookup(path...)
	ms, closeAt := d.members(objStart)
	unit := d.indentUnit()
	for _, m := range ms {
		if m.key == key {
			d.splice(m.valStart, m.valEnd, render(v, d.lineIndent(m.keyStart), unit))
			return
		}
	}
	outer := d.lineIndent(objStart)
	inner := outer + unit
	if len(ms) > 0 {
		inner = d.lineIndent(ms[0].keyStart)
		if !bytes.Contains(d.src[objStart:ms[0].keyStart], []byte("\n")) {
			inner = outer + unit
		}
	}
	entry := "\n" + inner + render(key, "", "") + ": " + render(v, inner, unit)
	if len(ms) == 0 {
		d.splice(objStart+1, closeAt, entry+"\n"+outer)
		return
	}
	last := ms[len(ms)-1]
	d.splice(last.valEnd, last.valEnd, ","+entry)
}

// del removes key from the object at path; it reports whether it was there.
func (d *jsonDoc) del(path []string, key string) bool {
	objStart, _, ok := d.lookup(path...)
	if !ok || d.src[objStart] != '{' {
		return false
	}
	ms, closeAt := d.members(objStart)
	for i, m := range ms {
		if m.key != key {
			continue
		}
		switch {
		case len(ms) == 1:
			d.splice(objStart+1, closeAt, "")
		case i == len(ms)-1:
			// drop ",<space>key: value" after the previous member
			d.splice(ms[i-1].valEnd, m.valEnd, "")
		default:
			d.splice(m.keyStart, ms[i+1].keyStart, "")
		}
		return true
	}
	return false
}

// appendElem adds v at the end of the array at path, creating it.
func (d *jsonDoc) appendElem(path []string, v any) {
	d.ensureRoot()
	if _, _, ok := d.lookup(path...); !ok {
		d.set(path[:len(path)-1], path[len(path)-1], []any{})
	}
	arrStart, _, _ := d.lookup(path...)
	es, closeAt := d.elements(arrStart)
	unit := d.indentUnit()
	outer := d.lineIndent(arrStart)
	inner := outer + unit
	if len(es) > 0 && bytes.Contains(d.src[arrStart:es[0][0]], []byte("\n")) {
		inner = d.lineIndent(es[0][0])
	}
	entry := "\n" + inner + render(v, inner, unit)
	if len(es) == 0 {
		d.splice(arrStart+1, closeAt, entry+"\n"+outer)
		return
	}
	last := es[len(es)-1]
	d.splice(last[1], last[1], ","+entry)
}

// removeElems drops the elements of the array at path for which drop
// (given the element's JSON) is true, and returns how many it dropped.
func (d *jsonDoc) removeElems(path []string, drop func(elem []byte) bool) int {
	n := 0
	for {
		arrStart, _, ok := d.lookup(path...)
		if !ok || d.src[arrStart] != '[' {
			return n
		}
		es, closeAt := d.elements(arrStart)
		idx := -1
		for i, e := range es {
			b := d.src[e[0]:e[1]]
			if d.comments {
				b, _ = blankComments(b)
			}
			if drop(b) {
				idx = i
				break
			}
		}
		if idx < 0 {
			return n
		}
		switch {
		case len(es) == 1:
			d.splice(arrStart+1, closeAt, "")
		case idx == len(es)-1:
			d.splice(es[idx-1][1], es[idx][1], "")
		default:
			d.splice(es[idx][0], es[idx+1][0], "")
		}
		n++
	}
}

// isEmptyContainer reports whether the value at path is {} or [].
func (d *jsonDoc) isEmptyContainer(path ...string) bool {
	s, e, ok := d.lookup(path...)
	if !ok {
		return false
	}
	if d.src[s] != '{' && d.src[s] != '[' {
		return false
	}
	return d.skipSpace(s+1) == e-1
}
