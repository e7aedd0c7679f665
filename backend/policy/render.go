package policy

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// String renders the rule as the [[rule]] TOML table shown to the person and
// written by AppendRule.
func (r Rule) String() string {
	var b strings.Builder
	b.WriteString("[[rule]]\n")
	kv := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%s = %s\n", k, tomlString(v))
		}
	}
	list := func(k string, vs []string) {
		if len(vs) == 0 {
			return
		}
		b.WriteString(k + " = [")
		for i, v := range vs {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(tomlString(v))
		}
		b.WriteString("]\n")
	}
	kv("id", r.ID)
	kv("action", r.Action.String())
	kv("tool", r.Tool)
	kv("binary", r.Binary)
	list("args", r.Args)
	list("paths", r.Paths)
	list("domains", r.Domains)
	if len(r.Ports) > 0 {
		ports := make([]string, len(r.Ports))
		for i, p := range r.Ports {
			ports[i] = strconv.Itoa(p)
		}
		b.WriteString("ports = [" + strings.Join(ports, ", ") + "]\n")
	}
	kv("reason", r.Reason)
	return b.String()
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == utf8.RuneError, r < 0x20, r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
