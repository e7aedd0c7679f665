package bwrap

import (
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

func TestArgs(t *testing.T) {
	base := sandbox.Prepared{
		Path: "/usr/bin/git", Argv: []string{"git", "status"},
		Dir: "/w/repo", Workspaces: []string{"/w"},
	}
	l := Layout{Home: "/home/ann", Protected: []string{"/w/.git/hooks"}, Hidden: []string{"/nonexistent-hidden"}}
	tests := []struct {
		name    string
		net     sandbox.NetworkMode
		want    []string // ordered subsequence
		notWant []string
	}{
		{"none", sandbox.NetNone,
			[]string{"--unshare-all", "--die-with-parent", "--new-session", "--tmpfs /tmp", "--tmpfs /home/ann", "--bind /w /w", "--ro-bind /w/.git/hooks /w/.git/hooks", "--chdir /w/repo", "-- /usr/bin/git status"},
			[]string{"--share-net", "/nonexistent-hidden"}},
		{"host", sandbox.NetHost, []string{"--unshare-all", "--share-net"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := base
			p.Network.Mode = tc.net
			got := strings.Join(Args(&p, l), " ")
			pos := 0
			for _, w := range tc.want {
				i := strings.Index(got[pos:], w)
				if i < 0 {
					t.Fatalf("args lack %q after position %d:\n%s", w, pos, got)
				}
				pos += i + len(w)
			}
			for _, nw := range tc.notWant {
				if strings.Contains(got, nw) {
					t.Errorf("args contain %q", nw)
				}
			}
			if !slices.Contains(Args(&p, l), "--cap-drop") {
				t.Error("capabilities not dropped")
			}
		})
	}
}
