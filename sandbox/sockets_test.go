package sandbox

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
)

func TestSocketIn(t *testing.T) {
	root := t.TempDir()
	mk := func(rel string) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sock := mk("run/user/bus")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	deep := mk("deep/a/b/c/d/e/s")
	ln2, err := net.Listen("unix", deep)
	if err != nil {
		t.Fatal(err)
	}
	defer ln2.Close()
	plain := mk("sdk/bin/tool")
	if err := os.WriteFile(plain, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		if err := os.WriteFile(mk(fmt.Sprintf("many/f%d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		path string
		want string
		ok   bool
	}{
		{sock, sock, true},
		{filepath.Join(root, "run"), sock, true},
		{filepath.Join(root, "sdk"), "", true},
		{plain, "", true},
		{filepath.Join(root, "missing"), "", true},
		{filepath.Join(root, "deep"), "", true}, // below the depth looked at
		{filepath.Join(root, "deep", "a", "b", "c"), deep, true},
	}
	for _, tc := range cases {
		got, ok := SocketIn(tc.path)
		if got != tc.want || ok != tc.ok {
			t.Errorf("SocketIn(%s) = %q, %v; want %q, %v", tc.path, got, ok, tc.want, tc.ok)
		}
	}
}
