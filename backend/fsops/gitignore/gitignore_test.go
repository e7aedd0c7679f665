package gitignore

import "testing"

func TestIgnored(t *testing.T) {
	root := `
# comment
*.log
!keep.log
build/
/dist
docs/*.html
**/tmp/**
secret\ 
\#hash
\!bang
trailing   
vendor
!vendor/
`
	var m *Matcher
	m = m.Add("", []byte(root))
	m = m.Add("sub", []byte("*.txt\n!important.log\n/local\n"))
	m = m.Add("sub/deeper", []byte("!*.txt\n"))

	cases := []struct {
		path  string
		isDir bool
		want  bool
	}{
		{"a.log", false, true},
		{"x/y/a.log", false, true},
		{"keep.log", false, false},
		{"x/keep.log", false, false},
		{"build", true, true},
		{"build", false, false}, // dir-only pattern, this is a file
		{"src/build", true, true},
		{"dist", true, true},
		{"src/dist", true, false}, // anchored to the root
		{"docs/a.html", false, true},
		{"docs/x/a.html", false, false},
		{"a/tmp/b", false, true},
		{"tmp/b/c", false, true},
		{"secret ", false, true},
		{"secret", false, false},
		{"#hash", false, true},
		{"!bang", false, true},
		{"trailing", false, true},
		{"vendor", false, true},
		{"vendor", true, false}, // later "!vendor/" re-includes the directory
		{"# comment", false, false},
		{"sub/a.txt", false, true},
		{"a.txt", false, false},
		{"sub/important.log", false, false}, // deeper file overrides the root
		{"sub/local", false, true},
		{"sub/x/local", false, false},
		{"local", false, false},
		{"sub/deeper/a.txt", false, false},
		{"sub/deeper/a.log", false, true},
	}
	for _, c := range cases {
		if got := m.Ignored(c.path, c.isDir); got != c.want {
			t.Errorf("Ignored(%q, dir=%v) = %v, want %v", c.path, c.isDir, got, c.want)
		}
	}
}

func TestEmpty(t *testing.T) {
	var m *Matcher
	if m.Ignored("x", false) {
		t.Fatal("nil matcher ignores")
	}
	if m.Add("", []byte("# only comments\n\n")) != nil {
		t.Fatal("empty file added a layer")
	}
	m = m.Add(".", []byte("x\r\n"))
	if !m.Ignored("x", false) {
		t.Fatal("CRLF line not matched")
	}
}
