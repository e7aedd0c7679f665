package termsafe

import (
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// JSON makes encoded JSON safe to print: DEL, C1 controls and the
// characters Hidden reports become \uXXXX escapes (surrogate pairs above
// U+FFFF), and a byte that is not UTF-8 becomes \ufffd. Outside strings
// JSON is ASCII, so every such rune sits inside a string, where the escape
// means the same character: the output decodes to the same value.
func JSON(b []byte) []byte {
	if plainJSON(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			out = append(out, `\ufffd`...)
		case r < 0x20 && r != '\n' && r != '\t':
			// Never in valid JSON strings; escaped should one slip through.
			out = fmt.Appendf(out, `\u%04x`, r)
		case r == 0x7f || Hidden(r):
			if r > 0xffff {
				hi, lo := utf16.EncodeRune(r)
				out = fmt.Appendf(out, `\u%04x\u%04x`, hi, lo)
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
		default:
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

func plainJSON(b []byte) bool {
	for _, c := range b {
		if (c < 0x20 && c != '\n' && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
}
