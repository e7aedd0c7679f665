//go:build linux

package gitguard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// gitDir lays out the protected part of a .git: config and hooks.
func gitDir(t *testing.T) (cfg, hooks string) {
	t.Helper()
	g := filepath.Join(t.TempDir(), ".git")
	hooks = filepath.Join(g, "hooks")
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg = filepath.Join(g, "config")
	if err := os.WriteFile(cfg, []byte("[core]\n\tbare = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hooks, "pre-commit.sample"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return cfg, hooks
}

func TestGuardCatchesAndRestores(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, cfg, hooks string)
	}{
		{"config appended", func(t *testing.T, cfg, _ string) { appendFile(t, cfg, "[core]\n\tfsmonitor = x\n") }},
		{"config replaced by rename", func(t *testing.T, cfg, _ string) {
			tmp := cfg + ".lock"
			writeFile(t, tmp, "[core]\n\thooksPath = /x\n", 0o644)
			must(t, os.Rename(tmp, cfg))
		}},
		{"hook planted", func(t *testing.T, _, hooks string) {
			writeFile(t, filepath.Join(hooks, "pre-commit"), "#!/bin/sh\nevil\n", 0o755)
		}},
		{"sample made executable under a hook name", func(t *testing.T, _, hooks string) {
			must(t, os.Rename(filepath.Join(hooks, "pre-commit.sample"), filepath.Join(hooks, "pre-commit")))
		}},
		{"hooks dir swapped", func(t *testing.T, _, hooks string) {
			must(t, os.Rename(hooks, hooks+".old"), os.Mkdir(hooks, 0o755))
			writeFile(t, filepath.Join(hooks, "post-checkout"), "evil", 0o755)
		}},
		{"config written through a hard link", func(t *testing.T, cfg, _ string) {
			alias := filepath.Join(filepath.Dir(cfg), "innocent")
			must(t, os.Link(cfg, alias))
			appendFile(t, alias, "[alias]\n\tx = !evil\n")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, hooks := gitDir(t)
			wantCfg, _ := os.ReadFile(cfg)
			g := &Guard{}
			l, err := g.Enter(t.Context(), []string{cfg, hooks}, nil)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			tc.change(t, cfg, hooks)
			select {
			case <-l.Abort():
				t.Logf("abort %s after the change", time.Since(start))
			case <-time.After(5 * time.Second):
				t.Fatal("no abort after the change")
			}
			vs := l.Leave()
			if len(vs) == 0 || vs[0].Kind != ViolationKind {
				t.Fatalf("violations %+v", vs)
			}
			if got, _ := os.ReadFile(cfg); string(got) != string(wantCfg) {
				t.Errorf("config now %q", got)
			}
			ents, _ := os.ReadDir(hooks)
			if len(ents) != 1 || ents[0].Name() != "pre-commit.sample" {
				t.Errorf("hooks now hold %v", ents)
			}
			// What the run wrote is kept, but nothing in it can run.
			asides, _ := filepath.Glob(filepath.Join(filepath.Dir(cfg), ".gatehouse-changed-*"))
			for _, a := range asides {
				_ = filepath.Walk(a, func(p string, fi os.FileInfo, err error) error {
					if err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
						t.Errorf("%s is still executable", p)
					}
					return nil
				})
			}
			if !strings.Contains(vs[0].Detail, ".git/") {
				t.Errorf("detail %q does not name the path", vs[0].Detail)
			}
		})
	}
}

// Reading, as git does on every command, is not a change.
func TestGuardIgnoresReads(t *testing.T) {
	cfg, hooks := gitDir(t)
	g := &Guard{}
	l, err := g.Enter(t.Context(), []string{cfg, hooks, filepath.Join(hooks, "..", "info", "attributes")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(cfg); err != nil {
		t.Fatal(err)
	}
	_, _ = os.ReadDir(hooks)
	writeFile(t, filepath.Join(filepath.Dir(cfg), "index.lock"), "x", 0o644) // git's own files beside them
	must(t, os.Rename(filepath.Join(filepath.Dir(cfg), "index.lock"), filepath.Join(filepath.Dir(cfg), "index")))
	select {
	case <-l.Abort():
		t.Fatal("a read or a neighbour's write aborted the run")
	case <-time.After(200 * time.Millisecond):
	}
	if vs := l.Leave(); len(vs) != 0 {
		t.Fatalf("violations %+v", vs)
	}
}

// Creating a missing protected path (here two levels deep) is caught
// at its first step.
func TestGuardMissingPath(t *testing.T) {
	cfg, _ := gitDir(t)
	deep := filepath.Join(filepath.Dir(cfg), "modules", "x", "hooks")
	g := &Guard{}
	l, err := g.Enter(t.Context(), []string{deep}, nil)
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.MkdirAll(deep, 0o755))
	select {
	case <-l.Abort():
	case <-time.After(5 * time.Second):
		t.Fatal("no abort")
	}
	if vs := l.Leave(); len(vs) == 0 {
		t.Fatal("no violation")
	}
	if _, err := os.Lstat(deep); err == nil {
		t.Fatal("the created path is still there")
	}
}

// Runs over the same paths share the watch: a change stops them all, and
// a run starting after it sees the restored state as its baseline.
func TestGuardShared(t *testing.T) {
	cfg, hooks := gitDir(t)
	want, _ := os.ReadFile(cfg)
	g := &Guard{}
	a, _ := g.Enter(t.Context(), []string{cfg, hooks}, nil)
	b, _ := g.Enter(t.Context(), []string{hooks, cfg}, nil)
	appendFile(t, cfg, "evil")
	for _, l := range []*Lease{a, b} {
		select {
		case <-l.Abort():
		case <-time.After(5 * time.Second):
			t.Fatal("a sharing run was not stopped")
		}
	}
	done := make(chan int)
	go func() { done <- len(a.Leave()) }()
	if n := len(b.Leave()); n == 0 {
		t.Error("last run got no violation")
	}
	if n := <-done; n == 0 {
		t.Error("first run got no violation")
	}
	c, err := g.Enter(t.Context(), []string{cfg, hooks}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if vs := c.Leave(); len(vs) != 0 {
		t.Fatalf("a clean run after the restore got %+v", vs)
	}
	if got, _ := os.ReadFile(cfg); string(got) != string(want) {
		t.Errorf("config %q", got)
	}
}

func writeFile(t *testing.T, p, s string, mode os.FileMode) {
	t.Helper()
	must(t, os.WriteFile(p, []byte(s), mode))
}

func appendFile(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteString(s)
	must(t, err, f.Close())
}

func must(t *testing.T, errs ...error) {
	t.Helper()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// A change made between runs is the person's: the next run keeps it and
// watches the new files, so a later change to them is still caught.
func TestGuardBetweenRuns(t *testing.T) {
	cfg, hooks := gitDir(t)
	g := &Guard{}
	l, _ := g.Enter(t.Context(), []string{cfg, hooks}, nil)
	if vs := l.Leave(); len(vs) != 0 {
		t.Fatal(vs)
	}
	appendFile(t, cfg, "[user]\n\tname = me\n")
	writeFile(t, filepath.Join(hooks, "pre-push"), "#!/bin/sh\n", 0o755)
	want, _ := os.ReadFile(cfg)
	// The idle watch hears the change before the next run enters.
	waitfor.Until(5*time.Second, 5*time.Millisecond, func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return len(g.watches) == 0 || g.watches[watchKey([]string{cfg, hooks}, nil)].stale
	})
	l, err := g.Enter(t.Context(), []string{cfg, hooks}, nil)
	if err != nil {
		t.Fatal(err)
	}
	appendFile(t, filepath.Join(hooks, "pre-push"), "evil\n")
	select {
	case <-l.Abort():
	case <-time.After(5 * time.Second):
		t.Fatal("a change to a hook the person added was missed")
	}
	if vs := l.Leave(); len(vs) == 0 {
		t.Fatal("no violation")
	}
	if got, _ := os.ReadFile(cfg); string(got) != string(want) {
		t.Errorf("the person's config change was lost: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(hooks, "pre-push")); string(got) != "#!/bin/sh\n" {
		t.Errorf("hook now %q", got)
	}
}

// A submodule's git dir inside the guarded .git/modules takes the run's
// writes; a new directory planted beside it is caught and moved aside,
// and the kept one comes through the restore as the run left it.
func TestGuardKeepsWritableDirs(t *testing.T) {
	modules := filepath.Join(t.TempDir(), ".git", "modules")
	sub := filepath.Join(modules, "x")
	must(t, os.MkdirAll(filepath.Join(sub, "objects"), 0o755))
	g := &Guard{}

	l, err := g.Enter(t.Context(), []string{modules}, []string{sub})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(sub, "objects", "o"), "object", 0o644)
	writeFile(t, filepath.Join(sub, "HEAD"), "ref: refs/heads/main\n", 0o644)
	select {
	case <-l.Abort():
		t.Fatal("a write inside the kept dir aborted the run")
	case <-time.After(200 * time.Millisecond):
	}
	if vs := l.Leave(); len(vs) != 0 {
		t.Fatalf("a write inside the kept dir was flagged: %+v", vs)
	}

	l, err = g.Enter(t.Context(), []string{modules}, []string{sub})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(sub, "objects", "p"), "during", 0o644)
	must(t, os.MkdirAll(filepath.Join(modules, "evil", "hooks"), 0o755))
	select {
	case <-l.Abort():
	case <-time.After(5 * time.Second):
		t.Fatal("no abort for a dir planted beside the kept one")
	}
	if vs := l.Leave(); len(vs) == 0 {
		t.Fatal("the planted dir was not flagged")
	}
	if _, err := os.Lstat(filepath.Join(modules, "evil")); err == nil {
		t.Error("the planted dir is still there")
	}
	for _, f := range []string{"objects/o", "objects/p", "HEAD"} {
		if _, err := os.Stat(filepath.Join(sub, f)); err != nil {
			t.Errorf("the kept dir lost %s in the restore: %v", f, err)
		}
	}
}

// rewriteSame replaces cfg with a copy of itself, as git does through
// config.lock to change nothing (git branch -D of a branch without a
// section).
func rewriteSame(t *testing.T, cfg string) {
	t.Helper()
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, cfg+".lock", string(b), 0o644)
	must(t, os.Rename(cfg+".lock", cfg))
}

// TestGuardSameContent: git rewriting its config to the same bytes
// stops no run and puts nothing back, a few times or many; past
// maxSameWrites, or once the file has a second name, it is a change.
func TestGuardSameContent(t *testing.T) {
	tests := []struct {
		name    string
		change  func(t *testing.T, cfg string)
		stopped bool
	}{
		{"rewritten the same, three times", func(t *testing.T, cfg string) {
			for range 3 {
				rewriteSame(t, cfg)
			}
		}, false},
		{"rewritten the same, past the bound", func(t *testing.T, cfg string) {
			for range maxSameWrites + 2 {
				rewriteSame(t, cfg)
			}
		}, true},
		{"the same bytes under a second name", func(t *testing.T, cfg string) {
			must(t, os.Link(cfg, filepath.Join(filepath.Dir(cfg), "innocent")))
		}, true},
		{"the same bytes, another mode", func(t *testing.T, cfg string) {
			must(t, os.Chmod(cfg, 0o755))
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, hooks := gitDir(t)
			want, _ := os.ReadFile(cfg)
			g := &Guard{}
			l, err := g.Enter(t.Context(), []string{cfg, hooks}, nil)
			if err != nil {
				t.Fatal(err)
			}
			tc.change(t, cfg)
			select {
			case <-l.Abort():
				if !tc.stopped {
					t.Fatal("the run was stopped")
				}
			case <-time.After(500 * time.Millisecond):
				if tc.stopped {
					t.Fatal("the run was not stopped")
				}
			}
			vs := l.Leave()
			if (len(vs) > 0) != tc.stopped {
				t.Fatalf("violations %+v", vs)
			}
			if got, _ := os.ReadFile(cfg); string(got) != string(want) {
				t.Errorf("config now %q", got)
			}
			if asides, _ := filepath.Glob(filepath.Join(filepath.Dir(cfg), ".gatehouse-changed-*")); !tc.stopped && len(asides) > 0 {
				t.Errorf("something was set aside: %v", asides)
			}
			// The next run still sees a real change.
			l, err = g.Enter(t.Context(), []string{cfg, hooks}, nil)
			if err != nil {
				t.Fatal(err)
			}
			appendFile(t, cfg, "[core]\n\tfsmonitor = x\n")
			select {
			case <-l.Abort():
			case <-time.After(5 * time.Second):
				t.Fatal("a change after the same rewrites did not stop the next run")
			}
			if vs := l.Leave(); len(vs) == 0 {
				t.Fatal("no violation for the change")
			}
			if got, _ := os.ReadFile(cfg); string(got) != string(want) {
				t.Errorf("config after the next run %q", got)
			}
		})
	}
}
