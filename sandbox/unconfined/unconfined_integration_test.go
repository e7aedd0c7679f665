//go:build integration

package unconfined

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// Every run is logged as UNCONFINED, and the env allowlist still holds.
func TestRunLogsUnconfined(t *testing.T) {
	var logs bytes.Buffer
	b, err := New(Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	s, err := b.Open(ctx, sandbox.SessionSpec{ID: "u", Workspaces: []string{t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	t.Setenv("GATEHOUSE_HOST_SECRET", "s3cret")
	for i := 0; i < 2; i++ {
		r, err := s.Run(ctx, sandbox.Spec{Argv: []string{"env"}, Env: []string{"A=1"}, Limits: sandbox.DefaultLimits()})
		if err != nil || r.ExitCode != 0 {
			t.Fatalf("run: %v %+v", err, r)
		}
		if strings.Contains(string(r.Stdout), "s3cret") || !strings.Contains(string(r.Stdout), "A=1") {
			t.Errorf("env: %s", r.Stdout)
		}
	}
	if n := strings.Count(logs.String(), "UNCONFINED run: the command has your full rights"); n != 2 {
		t.Errorf("UNCONFINED logged %d times, want 2:\n%s", n, logs.String())
	}
}
