package fsops

import (
	"bytes"
	"unicode/utf8"
)

// looksBinary treats a NUL byte or invalid UTF-8 in the sample as binary.
// When the sample is only the start of the file, a rune cut by the
// sample's end is not held against it.
func looksBinary(sample []byte, whole bool) bool {
	if bytes.IndexByte(sample, 0) >= 0 {
		return true
	}
	if !whole {
		sample = trimPartialRune(sample)
	}
	return !utf8.Valid(sample)
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < utf8.RuneSelf {
			return b // ASCII: nothing pending
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}
