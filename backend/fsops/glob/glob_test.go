package glob

import "testing"

func TestMatch(t *testing.T) {
	cases := []struct {
		pat, path string
		want      bool
	}{
		{"*.go", "main.go", true},
		{"*.go", "cmd/x/main.go", true},
		{"*.go", "main.go.txt", false},
		{"*.go", "dir.go/file", false},
		{"cmd/*.go", "cmd/main.go", true},
		{"cmd/*.go", "cmd/x/main.go", false},
		{"cmd/*.go", "sub/cmd/main.go", false},
		{"/build", "build", true},
		{"/build", "src/build", false},
		{"**/*.ts", "a.ts", true},
		{"**/*.ts", "src/a/b.ts", true},
		{"**/*.ts", "src/a/b.tsx", false},
		{"src/**", "src/a/b", true},
		{"src/**", "src", false},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/xb", false},
		{"a**b", "axxb", true},
		{"a**b", "ax/xb", false},
		{"?.c", "a.c", true},
		{"?.c", "ab.c", false},
		{"[abc].txt", "b.txt", true},
		{"[!abc].txt", "b.txt", false},
		{"[!abc].txt", "d.txt", true},
		{"[a-c]x", "bx", true},
		{"[]]x", "]x", true},
		{"[unterminated", "[unterminated", true},
		{`\*.go`, "*.go", true},
		{`\*.go`, "a.go", false},
		{"a.b", "axb", false},
		{"(x)+", "(x)+", true},
	}
	for _, c := range cases {
		p, err := Compile(c.pat)
		if err != nil {
			t.Fatalf("Compile(%q): %v", c.pat, err)
		}
		if got := p.Match(c.path); got != c.want {
			t.Errorf("%q.Match(%q) = %v, want %v", c.pat, c.path, got, c.want)
		}
	}
}

func TestAnchored(t *testing.T) {
	for pat, want := range map[string]bool{"*.go": false, "dir/": false, "/x": true, "a/b": true, "**/x": true} {
		p, err := Compile(pat)
		if err != nil {
			t.Fatal(err)
		}
		if p.Anchored() != want {
			t.Errorf("%q.Anchored() = %v", pat, p.Anchored())
		}
	}
	if _, err := Compile(""); err == nil {
		t.Error("empty pattern compiled")
	}
}
