package textdiff

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestUnifiedGolden(t *testing.T) {
	cases := []struct {
		name, a, b string
		ctx        int
		want       string
	}{
		{"equal", "x\n", "x\n", 3, ""},
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n", 3,
			"--- a\n+++ b\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"new file", "", "x\ny\n", 3,
			"--- a\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{"deleted file", "x\n", "", 3,
			"--- a\n+++ b\n@@ -1 +0,0 @@\n-x\n"},
		{"no newline at end", "a\nb", "a\nb\n", 3,
			"--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\nX\n3\n4\n5\n6\n7\n8\nY\n10\n", 1,
			"--- a\n+++ b\n@@ -1,3 +1,3 @@\n 1\n-2\n+X\n 3\n@@ -8,3 +8,3 @@\n 8\n-9\n+Y\n 10\n"},
		{"hunks merge when close", "1\n2\n3\n4\n5\n", "X\n2\n3\n4\nY\n", 2,
			"--- a\n+++ b\n@@ -1,5 +1,5 @@\n-1\n+X\n 2\n 3\n 4\n-5\n+Y\n"},
		{"zero context insert", "a\nb\n", "a\nnew\nb\n", 0,
			"--- a\n+++ b\n@@ -1,0 +2 @@\n+new\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Unified("a", "b", []byte(c.a), []byte(c.b), c.ctx)
			if got != c.want {
				t.Fatalf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

func TestDiffGuards(t *testing.T) {
	r := Diff("a", "b", []byte("x\x00y"), []byte("z"), Options{})
	if !r.Binary || r.Text != "Binary files a and b differ\n" {
		t.Fatalf("binary: %+v", r)
	}
	r = Diff("a", "b", []byte(strings.Repeat("x\n", 100)), []byte("y\n"), Options{MaxBytes: 50})
	if !r.TooLarge || !strings.Contains(r.Text, "too large") {
		t.Fatalf("too large: %+v", r)
	}
	var a, b strings.Builder
	for i := range 400 {
		fmt.Fprintf(&a, "a%d\n", i)
		fmt.Fprintf(&b, "b%d\n", i)
	}
	r = Diff("a", "b", []byte(a.String()), []byte(b.String()), Options{MaxEdits: 10})
	if !r.Approximate || r.Added != 400 || r.Removed != 400 {
		t.Fatalf("approximate: added %d removed %d approx %v", r.Added, r.Removed, r.Approximate)
	}
	if got := apply(t, a.String(), r.Text); got != b.String() {
		t.Fatal("approximate diff does not apply")
	}
	r = Diff("a", "b", []byte(a.String()), []byte(b.String()), Options{MaxOutput: 100})
	if !r.Truncated || len(r.Text) > 100 {
		t.Fatalf("truncated: %v len %d", r.Truncated, len(r.Text))
	}
}

// Random edits must produce diffs that apply back exactly and are minimal
// in size compared with the trivial delete-all/insert-all script.
func TestDiffRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		a := randomLines(rng)
		b := mutate(rng, a)
		as, bs := strings.Join(a, ""), strings.Join(b, "")
		if rng.IntN(5) == 0 && len(bs) > 0 {
			bs = strings.TrimSuffix(bs, "\n")
		}
		for _, ctx := range []int{NoContext, 1, 3} {
			r := Diff("a", "b", []byte(as), []byte(bs), Options{Context: ctx})
			if got := apply(t, as, r.Text); got != bs {
				t.Fatalf("case %d ctx %d: applying\n%s\nto %q gave %q, want %q", i, ctx, r.Text, as, got, bs)
			}
		}
	}
}

func randomLines(rng *rand.Rand) []string {
	n := rng.IntN(30)
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(rng.IntN(8)) + "\n"
	}
	return out
}

func mutate(rng *rand.Rand, a []string) []string {
	b := append([]string(nil), a...)
	for range rng.IntN(6) {
		switch rng.IntN(3) {
		case 0:
			if len(b) > 0 {
				i := rng.IntN(len(b))
				b = append(b[:i], b[i+1:]...)
			}
		case 1:
			i := rng.IntN(len(b) + 1)
			b = append(b[:i], append([]string{"new" + strconv.Itoa(rng.IntN(3)) + "\n"}, b[i:]...)...)
		case 2:
			if len(b) > 0 {
				b[rng.IntN(len(b))] = "chg\n"
			}
		}
	}
	return b
}

// apply is a strict patch(1): every context and removed line must match.
func apply(t *testing.T, src, diff string) string {
	t.Helper()
	if diff == "" {
		return src
	}
	a := splitLines([]byte(src))
	lines := strings.SplitAfter(diff, "\n")
	var out []string
	pos := 0
	for i := 2; i < len(lines) && lines[i] != ""; {
		var as, an, bs, bn int
		h := lines[i]
		if _, err := fmt.Sscanf(normalizeHeader(h), "@@ -%d,%d +%d,%d @@", &as, &an, &bs, &bn); err != nil {
			t.Fatalf("bad hunk header %q: %v", h, err)
		}
		start := as - 1
		if an == 0 {
			start = as
		}
		out = append(out, a[pos:start]...)
		pos = start
		i++
		for i < len(lines) && lines[i] != "" && !strings.HasPrefix(lines[i], "@@") {
			l := lines[i]
			i++
			noNL := i < len(lines) && strings.HasPrefix(lines[i], "\\ ")
			body := l[1:]
			if noNL {
				body = strings.TrimSuffix(body, "\n")
				i++
			}
			switch l[0] {
			case ' ', '-':
				if pos >= len(a) || a[pos] != body {
					t.Fatalf("hunk %q does not match at line %d", h, pos+1)
				}
				if l[0] == ' ' {
					out = append(out, body)
				}
				pos++
			case '+':
				out = append(out, body)
			}
		}
	}
	out = append(out, a[pos:]...)
	return strings.Join(out, "")
}

// normalizeHeader expands "-5" to "-5,1" so one Sscanf format fits.
func normalizeHeader(h string) string {
	f := strings.Fields(h)
	for i := 1; i <= 2; i++ {
		if !strings.Contains(f[i], ",") {
			f[i] += ",1"
		}
	}
	return strings.Join(f, " ")
}

func BenchmarkDiffLargeFileSmallEdit(b *testing.B) {
	var sb strings.Builder
	for i := range 50000 {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	a := []byte(sb.String())
	c := []byte(strings.Replace(sb.String(), "line 25000\n", "changed\n", 1))
	for b.Loop() {
		Diff("a", "b", a, c, Options{})
	}
}

func TestIsBinary(t *testing.T) {
	// A zlib stream as git stores a small object: no NUL byte, not text.
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write([]byte("blob 6\x00hello\n"))
	zw.Close()
	obj := bytes.ReplaceAll(z.Bytes(), []byte{0}, []byte{1})
	cut := strings.Repeat("é", 3999) + "€" // the 8000-byte sample ends inside "€"
	tests := []struct {
		name string
		in   []byte
		want bool
	}{
		{"empty", nil, false},
		{"text", []byte("package main\n\nfunc main() {}\n"), false},
		{"utf-8 text", []byte("naïve café 日本\n"), false},
		{"escape sequences are still text", []byte("\x1b[31mred\x1b[0m\n"), false},
		{"NUL", []byte("a\x00b"), true},
		{"compressed object without NUL", obj, true},
		{"latin-1", []byte("caf\xe9\n"), true},
		{"rune cut by the sample", []byte(cut), false},
		{"file ends in half a rune", []byte("ab\xe2\x82"), true},
	}
	for _, tt := range tests {
		if got := IsBinary(tt.in); got != tt.want {
			t.Errorf("%s: IsBinary = %v, want %v", tt.name, got, tt.want)
		}
	}
}
