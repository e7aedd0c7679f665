package termsafe

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "claude-code 1.0", "claude-code 1.0"},
		{"empty", "", ""},
		{"title OSC", "a\x1b]0;pwned\x07b", `a\x1b]0;pwned\x07b`},
		{"clear screen", "\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},
		{"DEL", "a\x7fb", `a\x7fb`},
		{"NUL", "a\x00b", `a\x00b`},
		{"newline forges a row", "ok\nfake row", `ok\nfake row`},
		{"carriage return", "ok\rover", `ok\rover`},
		{"tab", "a\tb", `a\tb`},
		{"C1 CSI", "a\u009b2Jb", `a\u009b2Jb`},
		{"C1 NEL", "a\u0085b", `a\u0085b`},
		{"RLO", "gnp\u202eexe.js", `gnp\u202eexe.js`},
		{"every bidi embedding and override", "\u202a\u202b\u202c\u202d\u202e", `\u202a\u202b\u202c\u202d\u202e`},
		{"isolates", "\u2066\u2067\u2068\u2069", `\u2066\u2067\u2068\u2069`},
		{"marks", "\u200e\u200f\u061c", `\u200e\u200f\u061c`},
		{"zero width", "a\u200bb\u200dc\u2060d\ufeffe", `a\u200bb\u200dc\u2060d\ufeffe`},
		{"soft hyphen", "pass\u00adword", `pass\u00adword`},
		{"line separator", "a\u2028b\u2029c", `a\u2028b\u2029c`},
		{"tag characters", "a\U000E0041b", `a\U000e0041b`},
		{"hangul filler", "a\u3164b", `a\u3164b`},
		{"invalid UTF-8", "a\xffb\xc3", `a\xffb\xc3`},
		{"overlong encoding", "\xc0\xaf", `\xc0\xaf`},
		{"letters stay", "café ünïcode 日本 😀", "café ünïcode 日本 😀"},
		{"backslash stays", `C:\dir \d+`, `C:\dir \d+`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestText(t *testing.T) {
	in := "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+\tnew\x1b[31m red\r\n"
	want := "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+\tnew\\x1b[31m red\\r\n"
	if got := Text(in); got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
}

// Whatever the input, the output carries no byte a terminal acts on and is
// valid UTF-8 without hidden characters.
func FuzzString(f *testing.F) {
	for _, s := range []string{"\x1b]0;x\x07", "\u202e", "\xff", "a\nb", "\U000E0001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{String(s), Text(s)} {
			if !utf8.ValidString(out) {
				t.Fatalf("output not UTF-8: %q", out)
			}
			for _, r := range out {
				if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || Hidden(r) {
					t.Fatalf("raw %U in %q", r, out)
				}
			}
		}
		if strings.ContainsAny(String(s), "\n\t") {
			t.Fatalf("String kept a newline or tab: %q", String(s))
		}
	})
}

func TestArgv(t *testing.T) {
	tests := []struct {
		in   []string
		want string
	}{
		{[]string{"go", "test", "./..."}, "go test ./..."},
		{[]string{"rm", "-rf /"}, "rm '-rf /'"},
		{[]string{"echo", ""}, "echo ''"},
		{[]string{"sh", "-c", "echo 'hi'"}, `sh -c 'echo '\''hi'\'''`},
		{[]string{"ls", "\u202etxt.exe"}, `ls \u202etxt.exe`},
		{[]string{"printf", "\x1b[2J"}, `printf '\x1b[2J'`},
	}
	for _, tt := range tests {
		if got := Argv(tt.in); got != tt.want {
			t.Errorf("Argv(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestJSON(t *testing.T) {
	v := map[string]any{"name": "evil\u202e\u0085\x7f\u2066x\U000E0041", "n": 1}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	raw = append(raw, []byte("\xff")...)
	out := JSON(raw[:len(raw)-1])
	for _, r := range string(out) {
		if r >= 0x7f {
			t.Fatalf("raw %U left in %s", r, out)
		}
	}
	var back map[string]any
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatalf("escaped JSON does not parse: %v\n%s", err, out)
	}
	if back["name"] != v["name"] {
		t.Fatalf("value changed: %q != %q", back["name"], v["name"])
	}
	if got := string(JSON([]byte("\"a\xffb\""))); got != `"a\ufffdb"` {
		t.Fatalf("invalid byte: %s", got)
	}
	plain := []byte("{\n  \"a\": \"b\"\n}\n")
	if got := JSON(plain); string(got) != string(plain) {
		t.Fatalf("plain JSON changed: %q", got)
	}
}
