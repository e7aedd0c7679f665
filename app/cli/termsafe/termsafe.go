// Package termsafe renders text an agent controls for a terminal. Nothing
// it returns can move the cursor, retitle or clear the window, switch the
// character set, or reorder what is shown: control characters (C0, C1,
// DEL), bidirectional overrides and isolates, and other invisible format
// characters become visible escapes (\x1b, \u202e), and bytes that are not
// UTF-8 become \xNN.
//
// Backslashes are left as they are, so paths and regular expressions stay
// readable; an agent that writes the six characters `\u202e` gains nothing,
// since what it imitates would have been shown the same way.
package termsafe

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// String escapes s for one field on one line: newlines and tabs are
// escaped too, so a field cannot forge the next row of a table.
func String(s string) string { return escape(s, false) }

// Text escapes s for a block of lines (a diff, a file preview): newlines
// and tabs stay, everything else that String escapes is escaped.
func Text(s string) string { return escape(s, true) }

// Strings escapes each element with String.
func Strings(in []string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = String(s)
	}
	return out
}

func escape(s string, lines bool) string {
	if plain(s, lines) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case lines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case Hidden(r):
			if r > 0xffff {
				fmt.Fprintf(&b, `\U%08x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// plain reports whether s is printable ASCII (plus newline and tab for
// blocks of lines), the common case, which needs no copy.
func plain(s string, lines bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			continue
		}
		if lines && (c == '\n' || c == '\t') {
			continue
		}
		return false
	}
	return true
}

// invisible are letters and marks that render as nothing (Hangul fillers,
// the combining grapheme joiner) and so can hide or fake text; they are
// not in the format category.
var invisible = map[rune]bool{0x034f: true, 0x115f: true, 0x1160: true, 0x3164: true, 0xffa0: true}

// Hidden reports whether a terminal would act on r or show nothing for
// it, beyond ASCII's controls: C1 controls, format characters (the
// bidirectional embeddings, overrides, isolates and marks U+202A–U+202E,
// U+2066–U+2069, U+200E, U+200F, U+061C, zero-width characters, tag
// characters), line and paragraph separators, and a few invisible letters.
func Hidden(r rune) bool {
	switch {
	case r < 0x80:
		return false
	case r <= 0x9f:
		return true // C1
	}
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r) || invisible[r]
}
