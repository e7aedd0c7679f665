package choose

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

func TestNewRejectsUnknownAndMissing(t *testing.T) {
	ctx := t.Context()
	tests := []struct {
		name    string
		opts    Options
		wantErr error
		hint    string
	}{
		{"firejail", Options{}, ErrUnknown, "choose one of"},
		{"bwrap", Options{Bwrap: "/nonexistent/bwrap"}, sandbox.ErrUnavailable, "to fix"},
		{"container", Options{}, sandbox.ErrUnavailable, "to fix"},
	}
	if runtime.GOOS != "darwin" {
		tests = append(tests, struct {
			name    string
			opts    Options
			wantErr error
			hint    string
		}{"seatbelt", Options{}, sandbox.ErrUnavailable, "only on macOS"})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := New(ctx, tc.name, tc.opts, nil)
			if b != nil || !errors.Is(err, tc.wantErr) {
				t.Fatalf("New(%q) = %v, %v; want error %v", tc.name, b, err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.hint) {
				t.Errorf("error %q lacks %q", err, tc.hint)
			}
		})
	}
}

func TestNoneOnlyWhenNamed(t *testing.T) {
	b, err := New(t.Context(), "none", Options{Helper: "/bin/true"}, nil)
	if err != nil || b.Name() != "none" {
		t.Fatalf("none: %v %v", b, err)
	}
	// auto never yields none, whatever is missing.
	b, err = New(t.Context(), "auto", Options{Bwrap: "/nonexistent/bwrap", Helper: "/bin/true"}, nil)
	if err == nil && b.Name() == "none" {
		t.Fatal("auto fell back to none")
	}
}
