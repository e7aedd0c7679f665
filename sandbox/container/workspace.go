package container

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
	"github.com/gatehouse-dev/gatehouse/sandbox/standin"
)

// cover is what keeps a session container's workspaces trustworthy: its
// mounts are fixed when the container starts, so the workspace is
// scanned then, and again before each run (key) to start a fresh
// container when what must be covered changed (a secret or protected
// name appeared, a submodule was added).
type cover struct {
	mounts []string // --mount values, parents before children
	held   []string // placeholders reserved for missing protected names
	dir    string   // holds the secrets' stand-ins and the empty file
	key    string
	// missing are the protected names that did not exist, which a cover
	// without placeholders leaves to its runs' helper (guardMissing); its
	// key tells them from the existing ones, so a name made since is a
	// new cover, with that name read-only.
	missing  []string
	reserved bool
}

// workspaceCover scans ws and lays out the mounts: protected paths
// read-only (over placeholders where missing, when reserve says so: a
// container whose calls go through a helper needs none, see
// guardMissing), submodules' git dirs
// writable again inside the read-only .git/modules, every secret behind
// an empty read-only file, directories that could not be searched
// behind an empty one (a secret file behind its stand-in, so git finds a
// tracked one unchanged), and the directories holding secrets bound onto
// themselves, so no command can move one away (a mount point cannot be
// renamed) and leave a decoy for a sandbox being set up beside it.
func workspaceCover(workspaces []string, e protect.Exposure, reserve bool) (*cover, error) {
	c := &cover{}
	type mount struct{ target, spec string }
	var ms []mount
	var missing, secrets []string
	scans, err := scanAll(workspaces, e)
	if err != nil {
		return nil, err
	}
	for _, ws := range scans {
		for _, p := range ws.Protected.Existing {
			// A volume follows the link on the host, so it would mount the
			// link's target (anywhere) and leave the link itself
			// replaceable from inside.
			if st, err := os.Lstat(p); err == nil && st.Mode()&os.ModeSymlink != 0 {
				t, ok := linkedInside(p, ws.Root)
				if !ok {
					return nil, fmt.Errorf("%s is a symbolic link, which the container sandbox cannot keep read-only; replace it with what it points to, or use the bwrap or landlock backend: %w", p, sandbox.ErrBadSpec)
				}
				// A link to a file of the workspace (AGENTS.md ->
				// CLAUDE.md, so every agent reads the same words): its
				// target is read-only, and the link's name is refused to a
				// run that removes it and makes a new one. Removing the
				// link itself is not refused.
				if !slices.Contains(ws.Protected.Existing, t) {
					ms = append(ms, mount{t, bindMount(t, t, "readonly")})
				}
				missing = append(missing, p)
				continue
			}
			ms = append(ms, mount{p, bindMount(p, p, "readonly")})
		}
		missing = append(missing, ws.Protected.Missing...)
		for _, d := range ws.Protected.Writable {
			ms = append(ms, mount{d, bindMount(d, d)})
		}
		// A run of this container may write the workspace itself (see
		// nest.go for one that stages), and moving .git away would leave
		// its read-only config and hooks behind.
		for _, d := range ws.PinnedParents() {
			ms = append(ms, mount{d, bindMount(d, d)})
		}
		for _, d := range ws.Secrets.Dirs {
			ms = append(ms, mount{d, emptyDirMount(d)})
		}
		secrets = append(secrets, ws.Secrets.Files...)
	}
	if len(secrets) > 0 {
		if c.dir, err = emptyFileDir(); err != nil {
			return nil, err
		}
		standIns := standin.Make(c.dir, secrets)
		for _, f := range secrets {
			src, ok := standIns[f]
			if !ok {
				src = filepath.Join(c.dir, "empty")
			}
			ms = append(ms, mount{f, bindMount(src, f, "readonly")})
		}
	}
	c.missing, c.reserved = missing, reserve
	if reserve {
		c.held = protect.Shared.Reserve(missing)
		// What later scans will see while the placeholders stand: a
		// placeholder .git, say, shows the names below it as missing,
		// which its read-only mount covers already.
		if scans, err = scanAll(workspaces, e); err != nil {
			c.release()
			return nil, err
		}
	}
	for _, p := range c.held {
		ms = append(ms, mount{p, bindMount(p, p, "readonly")})
	}
	c.key = c.keyOf(scans)
	// Parents first (a parent is a prefix of its children), as the
	// runtime mounts them in order.
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].target < ms[j].target })
	for _, m := range ms {
		c.mounts = append(c.mounts, m.spec)
	}
	return c, nil
}

// release gives back the placeholders and removes the empty file.
func (c *cover) release() {
	protect.Shared.Release(c.held)
	if c.dir != "" {
		os.RemoveAll(c.dir)
	}
}

// stale reports whether the workspaces now need other mounts than the
// container was started with.
func (c *cover) stale(workspaces []string, e protect.Exposure) bool {
	scans, err := scanAll(workspaces, e)
	return err != nil || c.keyOf(scans) != c.key // an error: the fresh start reports it
}

func scanAll(workspaces []string, e protect.Exposure) ([]protect.Workspace, error) {
	scans := make([]protect.Workspace, 0, len(workspaces))
	for _, w := range workspaces {
		ws, err := protect.Scan(w, e)
		if err != nil {
			return nil, fmt.Errorf("cannot tell what to protect in %s, so nothing runs: %w", w, err)
		}
		scans = append(scans, ws)
	}
	return scans, nil
}

// keyOf names what the cover depends on in scans. Where it reserved
// placeholders, a missing name and its placeholder count as the same.
func (c *cover) keyOf(scans []protect.Workspace) string {
	keys := make([]string, 0, len(scans))
	for _, ws := range scans {
		protected := ws.Protected.All()
		sort.Strings(protected)
		if !c.reserved {
			protected = append(append(protected, "\x03"), ws.Protected.Existing...)
		}
		// A secret whose size or time changed needs a new stand-in, or git
		// inside sees it changed (and `commit -am` would record the
		// stand-in).
		shapes := make([]string, len(ws.Secrets.Files))
		for i, f := range ws.Secrets.Files {
			shapes[i] = standin.Shape(f)
		}
		keys = append(keys, strings.Join([]string{
			strings.Join(protected, "\x01"), strings.Join(ws.Protected.Writable, "\x01"),
			strings.Join(ws.Hidden(), "\x01"), strings.Join(shapes, "\x01"),
		}, "\x02"))
	}
	return strings.Join(keys, "\x00")
}

// emptyFileDir makes a private directory holding the empty, read-only
// file secrets are covered with.
func emptyFileDir() (string, error) {
	d, err := os.MkdirTemp("", "gatehouse-ctr-hide-")
	if err == nil {
		err = os.WriteFile(filepath.Join(d, "empty"), nil, 0o444)
	}
	if err != nil {
		os.RemoveAll(d)
		return "", fmt.Errorf("prepare the file that hides secrets: %w", err)
	}
	return d, nil
}

// coverCurrent makes sure the container hides and protects what the
// workspaces hold now, before a run: when that changed, it starts a
// fresh container (its mounts cannot change), and a run that asks to
// read a secret the session hides is refused, for the same reason.
func (s *session) coverCurrent(ctx context.Context, spec sandbox.Spec) error {
	if s.cover.stale(s.ss.Workspaces, s.expose) {
		s.b.opts.Logger.Info("container sandbox: the workspace's protected paths or secrets changed; starting a fresh container", "container", s.name)
		if err := s.restart(ctx); err != nil {
			return err
		}
	}
	if len(spec.ExposeSecrets) == 0 {
		return nil
	}
	extra, err := protect.ParseExposure(spec.ExposeSecrets)
	if err != nil {
		return &sandbox.SpecError{Field: "expose_secrets", Value: strings.Join(spec.ExposeSecrets, ","), Err: errors.Join(sandbox.ErrBadSpec, err)}
	}
	if s.cover.stale(s.ss.Workspaces, s.expose.Join(extra)) {
		return &sandbox.SpecError{Field: "expose_secrets", Value: strings.Join(spec.ExposeSecrets, ","),
			Err: fmt.Errorf("%w: the container backend fixes which secrets it hides when the session starts; expose them for the session (the config's [sandbox] expose_secrets), or use bwrap or landlock", sandbox.ErrBadSpec)}
	}
	return nil
}

// restart replaces the session's container with a fresh one; when that
// fails, the session is closed, with nothing left to run in.
func (s *session) restart(ctx context.Context) error {
	if err := s.stop(ctx); err != nil {
		return err
	}
	if err := s.start(ctx); err != nil {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		return err
	}
	return nil
}

// guardMissing gives a run that writes the workspace itself (neither
// staged nor only reading) the protected names that do not exist: its
// helper refuses to create them (initproc's creation guard), so the
// container holds no placeholder at them. They are the cover's own:
// the run's stale check found the workspace as the cover has it.
func (c *cover) guardMissing(p *sandbox.Prepared, req *initproc.Request) {
	if p.Stage == nil && !p.Spec.ReadOnlyWorkspaces {
		req.Uncreatable = append(req.Uncreatable, c.missing...)
	}
}

// linkedInside resolves the protected link p to a regular file inside
// the workspace root, the only kind of link the container can keep: a
// directory or anything outside would need a mount at the link.
func linkedInside(p, root string) (string, bool) {
	t, err := filepath.EvalSymlinks(p)
	if err != nil || !strings.HasPrefix(t, root+string(filepath.Separator)) {
		return "", false
	}
	st, err := os.Stat(t)
	return t, err == nil && st.Mode().IsRegular()
}
