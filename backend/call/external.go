package call

import (
	"fmt"
	"strings"
)

// externalTag is the element that labels content from outside the
// workspace as data for the model.
const externalTag = "external_document"

// WrapExternal labels content from outside the workspace as data. Any
// occurrence of the tag's name inside the content or the source is broken,
// so nothing in them can open or close the wrapper.
func WrapExternal(kind, source, content string) string {
	return fmt.Sprintf("<%s kind=%q source=%q>\n%s\n</%s>", externalTag, kind, neutralise(source), neutralise(content), externalTag)
}

// neutralise breaks every occurrence of the tag name, matched with ASCII
// case folding only. Unicode folding could change the text's byte length
// (some letters grow when lowered) and so misplace the cuts; the parsers
// that matter read the tag name in ASCII.
func neutralise(s string) string {
	i := indexFoldASCII(s, externalTag)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i >= 0 {
		b.WriteString(s[:i])
		// A zero-width joiner inside the name breaks it for any parser.
		b.WriteString(s[i : i+len("external")])
		b.WriteString("\u200d")
		b.WriteString(s[i+len("external") : i+len(externalTag)])
		s = s[i+len(externalTag):]
		i = indexFoldASCII(s, externalTag)
	}
	b.WriteString(s)
	return b.String()
}

// indexFoldASCII is strings.Index with ASCII letters compared without case;
// lower must be lower case ASCII.
func indexFoldASCII(s, lower string) int {
	n := len(lower)
	for i := 0; i+n <= len(s); i++ {
		if foldEqualASCII(s[i:i+n], lower) {
			return i
		}
	}
	return -1
}

func foldEqualASCII(s, lower string) bool {
	for i := 0; i < len(lower); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
