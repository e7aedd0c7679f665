package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNewRefusesUnsafeRoots(t *testing.T) {
	ws, _ := tree(t)
	file := filepath.Join(ws, "README.md")
	home, _ := os.UserHomeDir()
	cases := []struct {
		name, dir, want string
	}{
		{"filesystem root", "/", "system directory"},
		{"etc", "/etc", "system directory /etc"},
		{"inside usr", "/usr/lib", "system directory /usr"},
		{"proc", "/proc/self", "system directory /proc"},
		{"tmp itself", "/tmp", "system directory"},
		{"home", home, "home directory"},
		{"missing", filepath.Join(ws, "nope"), "cannot be resolved"},
		{"a file", file, "not a directory"},
		{"empty", "", "empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := New(c.dir)
			if err == nil {
				r.Close()
				t.Fatalf("New(%q) succeeded", c.dir)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("New(%q) = %q, want it to mention %q", c.dir, err, c.want)
			}
		})
	}
	if _, err := New(); err == nil {
		t.Fatal("New() with no roots succeeded")
	}
}

func TestNewCanonicalizes(t *testing.T) {
	ws, outside := tree(t)
	link := filepath.Join(filepath.Dir(ws), "wslink")
	must(t, os.Symlink(ws, link))
	r := newRoots(t, link, ws+"/", outside, ws+"/src/..")
	got := r.Paths()
	if len(got) != 2 || got[0] != ws || got[1] != outside {
		t.Fatalf("Paths() = %v, want [%s %s]", got, ws, outside)
	}
}
