package textdiff

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Defaults for Options' zero values.
const (
	DefaultContext   = 3
	DefaultMaxBytes  = 8 << 20
	DefaultMaxEdits  = 2000
	DefaultMaxOutput = 256 << 10
	// NoContext asks for hunks without context lines (diff -U0).
	NoContext = -1
)

// Options bound the work. Zero values take the defaults above.
type Options struct {
	Context   int // lines around each change; 0 means DefaultContext, NoContext means none
	MaxBytes  int // per side; larger inputs get a summary line only
	MaxEdits  int // past this many line edits the changed middle is shown as one replacement
	MaxOutput int // diff text is cut at a line boundary past this size
}

// Result is a diff plus what the reader needs to trust it.
type Result struct {
	Text        string `json:"text"`
	Added       int    `json:"added"`
	Removed     int    `json:"removed"`
	Binary      bool   `json:"binary,omitempty"`
	TooLarge    bool   `json:"too_large,omitempty"`
	Approximate bool   `json:"approximate,omitempty"` // correct but not minimal
	Truncated   bool   `json:"truncated,omitempty"`
}

// Unified returns the unified diff of a and b ("" when equal) with the
// given context lines and default limits.
func Unified(aName, bName string, a, b []byte, context int) string {
	if context == 0 {
		context = NoContext
	}
	return Diff(aName, bName, a, b, Options{Context: context}).Text
}

// Diff compares a and b line by line.
func Diff(aName, bName string, a, b []byte, opt Options) Result {
	opt = opt.withDefaults()
	if bytes.Equal(a, b) {
		return Result{}
	}
	if IsBinary(a) || IsBinary(b) {
		return Result{Binary: true, Text: fmt.Sprintf("Binary files %s and %s differ\n", aName, bName)}
	}
	if len(a) > opt.MaxBytes || len(b) > opt.MaxBytes {
		return Result{TooLarge: true, Text: fmt.Sprintf("Files %s and %s differ (%d and %d bytes; too large to diff)\n", aName, bName, len(a), len(b))}
	}
	al, bl := splitLines(a), splitLines(b)
	ops, approx := script(al, bl, opt.MaxEdits)
	res := Result{Approximate: approx}
	for _, o := range ops {
		switch o.kind {
		case opDel:
			res.Removed++
		case opIns:
			res.Added++
		}
	}
	res.Text, res.Truncated = render(aName, bName, al, bl, ops, opt)
	return res
}

func (o Options) withDefaults() Options {
	switch {
	case o.Context == 0:
		o.Context = DefaultContext
	case o.Context < 0:
		o.Context = 0
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxEdits <= 0 {
		o.MaxEdits = DefaultMaxEdits
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = DefaultMaxOutput
	}
	return o
}

// IsBinary looks at the first 8000 bytes: a NUL byte (git's test), or
// bytes that are not UTF-8, make a file binary. Git's test alone passes
// small compressed files (git's own objects) as text, and their diff is
// noise a terminal may act on. A rune cut by the 8000-byte sample is fine.
func IsBinary(b []byte) bool {
	cut := len(b) > 8000
	if cut {
		b = b[:8000]
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return !cut || utf8.FullRune(b[i:])
		}
		i += n
	}
	return false
}

// splitLines keeps each line's "\n" so a missing final newline is seen.
func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	lines := strings.SplitAfter(string(b), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// script trims the common head and tail (most edits are local), diffs the
// middle, and if that needs more than maxEdits shows the middle as removed
// and re-added: still a correct diff, just not the shortest.
func script(a, b []string, maxEdits int) ([]op, bool) {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ids := map[string]int{}
	intern := func(lines []string) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	ma, mb := intern(a[pre:len(a)-suf]), intern(b[pre:len(b)-suf])
	mid, ok := myers(ma, mb, maxEdits)
	if !ok {
		mid = mid[:0]
		for i := range ma {
			mid = append(mid, op{opDel, i, 0})
		}
		for j := range mb {
			mid = append(mid, op{opIns, len(ma), j})
		}
	}
	ops := make([]op, 0, pre+len(mid)+suf)
	for i := range pre {
		ops = append(ops, op{opEq, i, i})
	}
	for _, o := range mid {
		ops = append(ops, op{o.kind, o.a + pre, o.b + pre})
	}
	for i := range suf {
		ops = append(ops, op{opEq, len(a) - suf + i, len(b) - suf + i})
	}
	return ops, !ok
}

func render(aName, bName string, a, b []string, ops []op, opt Options) (string, bool) {
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", aName, bName)
	ctx := opt.Context
	// aBefore[i], bBefore[i]: lines of each side consumed by ops[:i].
	aBefore, bBefore := make([]int, len(ops)+1), make([]int, len(ops)+1)
	for i, o := range ops {
		aBefore[i+1], bBefore[i+1] = aBefore[i], bBefore[i]
		if o.kind != opIns {
			aBefore[i+1]++
		}
		if o.kind != opDel {
			bBefore[i+1]++
		}
	}
	for i := 0; i < len(ops); {
		if ops[i].kind == opEq {
			i++
			continue
		}
		start := max(0, i-ctx)
		last := i
		for j := i + 1; j < len(ops) && j-last <= 2*ctx+1; j++ {
			if ops[j].kind != opEq {
				last = j
			}
		}
		end := min(len(ops), last+ctx+1)
		na, nb := aBefore[end]-aBefore[start], bBefore[end]-bBefore[start]
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(aBefore[start], na), hunkRange(bBefore[start], nb))
		for _, o := range ops[start:end] {
			var line string
			if o.kind == opIns {
				line = b[o.b]
			} else {
				line = a[o.a]
			}
			if sb.Len()+len(line) > opt.MaxOutput {
				return sb.String(), true
			}
			sb.WriteByte(o.kind)
			sb.WriteString(line)
			if !strings.HasSuffix(line, "\n") {
				sb.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return sb.String(), false
}

// hunkRange formats "start,count" the way diff -u does: an empty range
// names the line before it.
func hunkRange(before, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", before)
	case 1:
		return fmt.Sprintf("%d", before+1)
	}
	return fmt.Sprintf("%d,%d", before+1, n)
}
