package call

import (
	"context"
	"os"
	"path"
	"slices"
	"sync"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/backend/workspace"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// When a command fails on one path the sandbox hides, and showing that
// path read-only is a narrow widening (not a credential, not Gatehouse's
// data), the person gets a card proposing exactly that; allowed, the
// command runs again with the path shown, for this call or the session.

// ReadOnlyKeeper keeps a path the person chose to show every sandbox
// read-only ("always" on the proposal card) for the daemon's next start:
// config.ReadOnlyFile writes it to [sandbox] read_only.
type ReadOnlyKeeper interface {
	AddReadOnly(path string) error
}

// shownPaths are the paths shown read-only to every command of every
// session since the person said "always" (the config keeps them for the
// next start).
type shownPaths struct {
	mu    sync.Mutex
	paths []string
}

func (s *shownPaths) add(p string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.paths, p) {
		s.paths = append(s.paths, p)
	}
}

func (s *shownPaths) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.paths)
}

// mayShow: p exists on the host, and the person may show it read-only:
// credentials and Gatehouse's own data are never proposed, nor a place
// of the home's that holds credentials or history (~/.cargo's registry
// token, ~/.config with its gh), which [sandbox] read_only refuses too:
// an "always" would write a line the daemon's next start refuses.
func (r *Runner) mayShow(p string) bool {
	home, _ := os.UserHomeDir()
	if policy.Credential(p) || sandbox.SecretInside(p, home) != "" || workspace.InsideAny(p, r.deps.Hidden) {
		return false
	}
	// Why: a socket shown "read-only" still connects; the card would hand
	// the command the service behind it (a database, the container
	// engine), which no one clicking it expects.
	if sock, ok := sandbox.SocketIn(p); sock != "" || !ok {
		return false
	}
	_, err := os.Stat(p)
	return err == nil
}

// finishOrWiden finishes the call, unless its command failed on a path
// the person may show it: then the card, and on allow the call runs again
// (run loops on c.again).
func (r *Runner) finishOrWiden(ctx context.Context, c *InFlight, out Output) Result {
	p := c.proposal
	c.proposal = ""
	if p == "" || !out.IsError || len(c.showReadOnly) > 0 || !r.mayPropose(c) {
		return r.finish(ctx, c, out)
	}
	d, err := r.Ask(ctx, c, r.widenCard(c, p))
	if err != nil || !d.Allow {
		// The result already says what the sandbox refused.
		return r.finish(ctx, c, out)
	}
	switch {
	case d.Scope == approval.ScopeAlways && r.deps.KeepReadOnly != nil:
		r.shownAlways.add(p)
		if err := r.deps.KeepReadOnly.AddReadOnly(p); err != nil {
			// Shown until the daemon stops; the log says why not after.
			r.deps.Logger.Warn("keep a path shown read-only in the config file", "path", p, "err", err)
		}
	case d.Scope == approval.ScopeSession && !c.State.NoSessionGrants:
		c.State.AddReadOnly(p)
	}
	c.showReadOnly = append(c.showReadOnly, p)
	r.record(ctx, c, "boundary.widened", "human", map[string]any{"path": p, "scope": string(d.Scope), "read_only": true})
	c.again = true
	return Result{}
}

// mayPropose: the session's mode lets the person be asked (plan and
// unattended sessions get the sentence only).
func (r *Runner) mayPropose(c *InFlight) bool {
	mode, err := policy.ParseMode(c.State.Live.Snapshot().Mode)
	return err == nil && mode != policy.ModePlan && mode != policy.ModeUnattended
}

// widenCard proposes showing p read-only to the call's command.
func (r *Runner) widenCard(c *InFlight, p string) approval.Request {
	base := path.Base(c.plan.Action.Binary)
	req := approval.Request{
		Kind: approval.KindCall, Session: c.Session(), CallID: c.ID, Actor: c.actor(), Tool: c.Req.Tool,
		Binary: c.plan.Action.Binary, Cwd: c.plan.Action.Cwd, Paths: []string{p},
		Reason: base + " failed because Gatehouse's sandbox hides " + p + "; allow to show it to the command read-only and run the command again",
		Findings: []string{
			p + " stays read-only: the command can read it, not change it",
			"once: this run only; for this session: every command of this session sees it",
		},
		Via: string(c.Req.Via), Native: c.Req.Native, NoSessionScope: c.State.NoSessionGrants, Goal: c.State.Live.Snapshot().Goal,
	}
	if r.deps.KeepReadOnly != nil {
		req.AlwaysNote = "Always: every command of every session sees " + p + " read-only from now on (added to [sandbox] read_only in your config file)."
	}
	for _, a := range c.plan.Action.Argv {
		req.Argv = append(req.Argv, r.redact(a))
	}
	return req
}
