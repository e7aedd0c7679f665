package sandbox

import (
	"context"
	"errors"
	"testing"
)

func TestProcessSession(t *testing.T) {
	ws := t.TempDir()
	ran := 0
	run := func(ctx context.Context, ss SessionSpec, p *Prepared) (Result, error) {
		ran++
		return Result{Backend: "test"}, nil
	}
	if _, err := OpenProcessSession("test", SessionSpec{ID: "s", Workspaces: []string{"/"}}, PrepareOptions{}, run); err == nil {
		t.Fatal("a session on / was opened")
	}
	s, err := OpenProcessSession("test", SessionSpec{ID: "s", Workspaces: []string{ws}}, PrepareOptions{}, run)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(t.Context(), Spec{}); !errors.Is(err, ErrEmptyArgv) || ran != 0 {
		t.Fatalf("empty argv: %v, ran %d", err, ran)
	}
	if _, err := s.Run(t.Context(), Spec{Argv: []string{"true"}}); err != nil || ran != 1 {
		t.Fatalf("run: %v, ran %d", err, ran)
	}
	s.Close(t.Context())
	if r, err := s.Run(t.Context(), Spec{Argv: []string{"true"}}); !errors.Is(err, ErrClosed) || ran != 1 || r.Backend != "test" {
		t.Fatalf("after close: %v, ran %d", err, ran)
	}
}
