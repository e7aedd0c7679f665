package agentconfig

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// TOML files are edited as text too: Gatehouse's tables live in one block
// between two marker comments, appended at the end, so the person's tables
// and comments are never rewritten.
const (
	tomlBeginPrefix = "# BEGIN gatehouse"
	tomlEnd         = "# END gatehouse"
)

func tomlBegin(a Agent) string {
	return fmt.Sprintf("%s: written by `gatehouse install %s`; `gatehouse install %s --uninstall` removes it", tomlBeginPrefix, a, a)
}

// parseTOML checks b and decodes it; the error names the line.
func parseTOML(b []byte) (map[string]any, error) {
	m := map[string]any{}
	if err := toml.Unmarshal(b, &m); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, _ := de.Position()
			return nil, &errSyntax{Line: row, Msg: de.Error()}
		}
		return nil, &errSyntax{Line: 1, Msg: err.Error()}
	}
	return m, nil
}

// tomlStripBlock removes Gatehouse's marker blocks. Inside a block, a table
// that owns does not claim (one the agent itself added there) is kept.
func tomlStripBlock(b []byte, owns func(header string) bool) []byte {
	lines := strings.SplitAfter(string(b), "\n")
	var out []string
	in, dropping := false, false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case !in && strings.HasPrefix(t, tomlBeginPrefix):
			in, dropping = true, true
			// the blank line install put before the block
			if n := len(out); n > 0 && strings.TrimSpace(out[n-1]) == "" {
				out = out[:n-1]
			}
			continue
		case in && t == tomlEnd:
			in = false
			continue
		case in && strings.HasPrefix(t, "["):
			dropping = owns(t)
		}
		if in && (dropping || t == "") {
			continue
		}
		out = append(out, l)
	}
	return []byte(strings.Join(out, ""))
}

// tomlHasBlock reports whether b holds a Gatehouse block.
func tomlHasBlock(b []byte) bool {
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), tomlBeginPrefix) {
			return true
		}
	}
	return false
}

// tomlAppendBlock adds body between the markers at the end of b.
func tomlAppendBlock(b []byte, a Agent, body string) []byte {
	var buf bytes.Buffer
	buf.Write(b)
	if len(b) > 0 && !bytes.HasSuffix(b, []byte("\n")) {
		buf.WriteByte('\n')
	}
	if len(bytes.TrimSpace(b)) > 0 {
		buf.WriteByte('\n')
	}
	buf.WriteString(tomlBegin(a) + "\n")
	buf.WriteString(strings.TrimRight(body, "\n") + "\n")
	buf.WriteString(tomlEnd + "\n")
	return buf.Bytes()
}

// tomlString is a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func tomlStringArray(v []any) string {
	parts := make([]string, len(v))
	for i, s := range v {
		parts[i] = tomlString(fmt.Sprint(s))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// tomlTable looks up a nested table in a decoded document.
func tomlTable(m map[string]any, path ...string) (map[string]any, bool) {
	for _, k := range path {
		next, ok := m[k].(map[string]any)
		if !ok {
			return nil, false
		}
		m = next
	}
	return m, true
}
