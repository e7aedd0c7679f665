package projects

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

// Asker puts a card to the person and waits for the decision.
// *approval.Broker is one.
type Asker interface {
	Ask(ctx context.Context, req approval.Request) (approval.Decision, error)
}

// Store keeps the roots the person added for good ("always" on a card,
// `gatehouse workspaces add`): the config file's [workspaces] roots.
type Store interface {
	AddRoot(root string) error
	RemoveRoot(root string) error
}

// Options wire the projects to the daemon.
type Options struct {
	// Roots are the configured roots: --workspace and [workspaces] roots.
	Roots []string
	// Home and DataDir bound what may ever be a workspace (see Refuse).
	Home, DataDir string
	Asker         Asker
	Store         Store
	Logger        *slog.Logger
	// Added, if set, is told of each root added while the daemon runs,
	// so the parts that key on workspaces (their policy files, their
	// build caches) learn of it.
	Added func(root string)
}

// Projects is which projects agents may work in.
type Projects struct {
	opts  Options
	mu    sync.Mutex
	roots []string
}

// New makes the projects over cleaned, existing roots.
func New(opts Options) *Projects {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	p := &Projects{opts: opts}
	for _, r := range opts.Roots {
		p.roots = appendRoot(p.roots, r)
	}
	return p
}

func appendRoot(roots []string, r string) []string {
	r = filepath.Clean(r)
	if slices.Contains(roots, r) {
		return roots
	}
	return append(roots, r)
}

// Roots are the roots served without a card, in the order they came.
func (p *Projects) Roots() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.roots)
}

// Add serves a root from now on, and keeps it in the config when forever
// is set.
func (p *Projects) Add(root string, forever bool) error {
	// The directory named, not its git top: a person may allow one
	// package of a monorepo.
	abs, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return dirError("the workspace", root, err)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return fmt.Errorf("the workspace %s is not a directory", root)
	}
	if err := Refuse(real, p.opts.Home, p.opts.DataDir); err != nil {
		return err
	}
	if forever && p.opts.Store != nil {
		if err := p.opts.Store.AddRoot(real); err != nil {
			return fmt.Errorf("keep the workspace in the config: %w", err)
		}
	}
	p.mu.Lock()
	n := len(p.roots)
	p.roots = appendRoot(p.roots, real)
	added := len(p.roots) > n
	p.mu.Unlock()
	if added && p.opts.Added != nil {
		p.opts.Added(real)
	}
	return nil
}

// Remove stops serving a root without a card (sessions in it go on) and
// drops it from the config.
func (p *Projects) Remove(root string) error {
	root = filepath.Clean(root)
	p.mu.Lock()
	i := slices.Index(p.roots, root)
	if i >= 0 {
		p.roots = slices.Delete(p.roots, i, i+1)
	}
	p.mu.Unlock()
	if p.opts.Store != nil {
		if err := p.opts.Store.RemoveRoot(root); err != nil {
			return fmt.Errorf("drop the workspace from the config: %w", err)
		}
	}
	if i < 0 {
		return fmt.Errorf("%s is not a workspace root; `gatehouse workspaces` lists them", root)
	}
	return nil
}

// served is the workspace a project gets without a card: the project
// when a root holds it, the root when the project holds the root (the
// person named one package of a repository), or "".
func (p *Projects) served(project string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.roots {
		if workspace.InsideAny(project, []string{r}) {
			return project
		}
	}
	for _, r := range p.roots {
		if workspace.InsideAny(r, []string{project}) {
			return r
		}
	}
	return ""
}

// ErrNoProject: the run's transport does not say where the agent works,
// and no root is configured to fall back on.
var ErrNoProject = errors.New("Gatehouse does not know which project this agent works in: no workspace is configured and the agent's client did not say its directory; start the agent through `gatehouse install` (hooks and the stdio bridge say it), or add a root with `gatehouse workspaces add DIR`")

// Resolve is the workspace a run in cwd gets without a card: its project
// when a root serves it, the first root when the run does not say where
// it works. Otherwise ask is the project to put to the person. A project
// no card may allow is an error.
func (p *Projects) Resolve(cwd string) (ws []string, ask string, err error) {
	if cwd == "" {
		if roots := p.Roots(); len(roots) > 0 {
			return roots[:1], "", nil
		}
		return nil, "", ErrNoProject
	}
	project, err := Of(cwd, p.opts.Home)
	if err != nil {
		return nil, "", err
	}
	if err := Refuse(project, p.opts.Home, p.opts.DataDir); err != nil {
		return nil, "", err
	}
	if ws := p.served(project); ws != "" {
		return []string{ws}, "", nil
	}
	return nil, project, nil
}

// Ask files the workspace card for project and waits: the workspace is
// the project once the person allows it; "always" adds it to the roots.
func (p *Projects) Ask(ctx context.Context, run session.WorkspaceAsk) ([]string, error) {
	project := run.Project
	if p.opts.Asker == nil {
		return nil, fmt.Errorf("the project %s is not a workspace root and nobody can be asked; add it with `gatehouse workspaces add %s`", project, project)
	}
	how := "an agent started in " + project
	if run.NamedBy != "" {
		how = "an agent asks to work in " + project + " too (" + run.NamedBy + ")"
	}
	d, err := p.opts.Asker.Ask(ctx, approval.Request{
		Kind: approval.KindWorkspace, Session: run.Session, Actor: run.Actor, Tool: "workspace", Paths: []string{project}, Cwd: run.Cwd,
		Reason:         how + ", which is not one of Gatehouse's workspaces; allow to let its commands and edits work there (always adds it to your workspace roots)",
		NoSessionScope: run.NoSessionScope,
	})
	if err != nil {
		return nil, fmt.Errorf("ask the person about the workspace %s: %w", project, err)
	}
	if !d.Allow {
		msg := "The person did not allow Gatehouse to work in " + project
		if d.Message != "" {
			msg += ": " + d.Message
		}
		return nil, errors.New(msg)
	}
	if d.Scope == approval.ScopeAlways {
		if err := p.Add(project, true); err != nil {
			p.opts.Logger.Warn("keep an allowed workspace", "workspace", project, "err", err)
		}
	}
	return []string{project}, nil
}
