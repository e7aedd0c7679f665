//go:build integration

package landlock

import (
	"context"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

func TestSmoke(t *testing.T) {
	ctx := context.Background()
	b, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	s, err := b.Open(ctx, sandbox.SessionSpec{ID: "t", Workspaces: []string{ws}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	r, err := s.Run(ctx, sandbox.Spec{Argv: []string{"sh", "-c", "id; pwd; echo $HOME; ls -la ~ /tmp; touch x && echo wrote; touch .mcp.json; ls -la"}, Limits: sandbox.DefaultLimits()})
	t.Logf("%+v\nstdout:\n%s\nstderr:\n%s", r, r.Stdout, r.Stderr)
	if err != nil {
		t.Fatal(err)
	}
}
