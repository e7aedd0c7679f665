package projects

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/session"
)

// person answers cards with a set decision and keeps what it was shown.
type person struct {
	d     approval.Decision
	cards []approval.Request
}

func (p *person) Ask(_ context.Context, req approval.Request) (approval.Decision, error) {
	p.cards = append(p.cards, req)
	return p.d, nil
}

// roots is a Store in memory.
type roots struct{ list []string }

func (r *roots) AddRoot(root string) error { r.list = append(r.list, root); return nil }
func (r *roots) RemoveRoot(root string) error {
	r.list = slices.DeleteFunc(r.list, func(s string) bool { return s == root })
	return nil
}

// TestWorkspacesFollowTheAgent: a project below a root is served at once;
// one outside asks, once per run, and "always" makes it a root for good;
// a refusal says so; a run that names no directory gets the first root.
func TestWorkspacesFollowTheAgent(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	src, other := filepath.Join(base, "src"), filepath.Join(base, "other")
	app := filepath.Join(src, "app")
	for _, d := range []string{filepath.Join(app, ".git"), filepath.Join(app, "cmd"), other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(app, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	tests := []struct {
		name     string
		cwd      string
		decision approval.Decision
		want     []string
		cards    int
		roots    []string // after
		err      string
	}{
		{"below a root", filepath.Join(app, "cmd"), approval.Decision{}, []string{app}, 0, []string{src}, ""},
		{"outside, once", other, approval.Decision{Allow: true, Scope: approval.ScopeOnce}, []string{other}, 1, []string{src}, ""},
		{"outside, always", other, approval.Decision{Allow: true, Scope: approval.ScopeAlways}, []string{other}, 1, []string{src, other}, ""},
		{"outside, denied", other, approval.Decision{By: "human", Message: "not that one"}, nil, 1, []string{src}, "not that one"},
		{"no directory", "", approval.Decision{}, []string{src}, 0, []string{src}, ""},
		{"home", base, approval.Decision{Allow: true}, nil, 0, []string{src}, "home directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			who, store := &person{d: tt.decision}, &roots{}
			p := New(Options{Roots: []string{src}, Home: base, DataDir: "/nowhere", Asker: who, Store: store})
			ws, ask, err := p.Resolve(tt.cwd)
			if err == nil && ask != "" {
				ws, err = p.Ask(t.Context(), session.WorkspaceAsk{Session: "s1", Actor: "agent:claude", Cwd: tt.cwd, Project: ask})
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one saying %q", err, tt.err)
				}
			} else if err != nil || !slices.Equal(ws, tt.want) {
				t.Fatalf("workspace %q, %v; want %q", ws, err, tt.want)
			}
			if len(who.cards) != tt.cards {
				t.Fatalf("%d cards, want %d", len(who.cards), tt.cards)
			}
			if tt.cards > 0 {
				c := who.cards[0]
				if c.Kind != approval.KindWorkspace || c.Session != "s1" || len(c.Paths) != 1 || c.Paths[0] != other {
					t.Fatalf("card %+v", c)
				}
			}
			if got := p.Roots(); !slices.Equal(got, tt.roots) {
				t.Fatalf("roots after: %q, want %q", got, tt.roots)
			}
			if tt.decision.Scope == approval.ScopeAlways && !slices.Contains(store.list, other) {
				t.Fatalf("always did not keep the root: %q", store.list)
			}
		})
	}
}

// TestAddAndRemoveRoots: adding refuses what no card may allow and keeps
// the root when asked to; removing drops it.
func TestAddAndRemoveRoots(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	store := &roots{}
	p := New(Options{Home: base, Store: store})
	if err := p.Add(base, true); err == nil {
		t.Fatal("the home directory became a root")
	}
	proj := filepath.Join(base, "p")
	os.Mkdir(proj, 0o755)
	if err := p.Add(proj, true); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Roots(), []string{proj}) || !slices.Equal(store.list, []string{proj}) {
		t.Fatalf("roots %q, kept %q", p.Roots(), store.list)
	}
	if err := p.Remove(proj); err != nil || len(p.Roots()) != 0 || len(store.list) != 0 {
		t.Fatalf("remove: %v; roots %q, kept %q", err, p.Roots(), store.list)
	}
	if err := p.Remove(proj); err == nil {
		t.Fatal("removing a root that is not one said nothing")
	}
}
