package proof

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// The rows on what the host runs by itself from the workspace (git's
// hooks wherever core.hooksPath points, a submodule's git dir, direnv's
// .envrc, a hook runner's config) and on the workspace's secrets.

const (
	huskyHook    = "#!/bin/sh\nnpm test\n"
	submoduleCfg = "[core]\n\trepositoryformatversion = 0\n\tworktree = ../../../x\n"
	preCommitCfg = "repos: []\n"
)

// plantWorkspace lays out what the rows attack: husky's hooks (the
// repository's core.hooksPath), a submodule's git dir, pre-commit's
// config, and two .env files holding secret.
func plantWorkspace(ws, secret string) error {
	files := map[string]string{
		".husky/pre-commit":       huskyHook,
		".git/modules/x/HEAD":     "ref: refs/heads/main\n",
		".git/modules/x/config":   submoduleCfg,
		".pre-commit-config.yaml": preCommitCfg,
		".env":                    "API_KEY=" + secret + "\n",
		"sub/.env.local":          "DB_PASSWORD=" + secret + "\n",
		"x/.git":                  "gitdir: ../.git/modules/x\n",
	}
	for p, body := range steeringPlanted {
		files[p] = body
	}
	for _, d := range []string{".git/modules/x/hooks", ".git/modules/x/objects"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			return err
		}
	}
	for p, body := range files {
		full := filepath.Join(ws, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if strings.Contains(p, ".env") {
			mode = 0o600
		}
		if err := os.WriteFile(full, []byte(body), mode); err != nil {
			return err
		}
	}
	return nil
}

// unchanged reports the first of the files (relative path → content)
// that no longer holds what it held.
func (e *env) unchanged(files map[string]string) string {
	for p, want := range files {
		got, err := os.ReadFile(filepath.Join(e.ws, filepath.FromSlash(p)))
		if err != nil || string(got) != want {
			return p
		}
	}
	return ""
}

// absent reports the first of the paths that exists and is not a
// placeholder of the sandbox's.
func (e *env) absent(paths ...string) string {
	for _, p := range paths {
		full := filepath.Join(e.ws, filepath.FromSlash(p))
		if _, err := os.Lstat(full); err != nil {
			continue
		}
		if !protect.IsPlaceholder(full) {
			return p
		}
	}
	return ""
}

func checkHooksPath(ctx context.Context, e *env) (Outcome, string) {
	r, err := e.run(ctx, []string{"sh", "-c", unmountScript + `echo evil > .husky/pre-commit; echo evil > .husky/post-checkout; ` +
		`mkdir .husky/_; mv .husky .husky.old; rm -rf .husky; exit 0`}, nil)
	if err != nil {
		return Fail, fmt.Sprintf("run failed: %v", err)
	}
	if p := e.unchanged(map[string]string{".husky/pre-commit": huskyHook}); p != "" {
		return Fail, "the sandbox changed or moved " + p + ", a hook git runs (core.hooksPath = .husky)"
	}
	if p := e.absent(".husky/post-checkout", ".husky/_", ".husky.old"); p != "" {
		return Fail, "the sandbox created " + p
	}
	return Pass, "writes refused: " + firstLine(r.Stderr)
}

func checkSubmodule(ctx context.Context, e *env) (Outcome, string) {
	r, err := e.run(ctx, []string{"sh", "-c", unmountScript + `echo evil > .git/modules/x/hooks/post-checkout; echo evil >> .git/modules/x/config; ` +
		`mv .git/modules/x/config c2; echo ../../../evil > .git/modules/x/commondir; echo gitdir: ../evil > x/.git; ` +
		`mkdir -p .git/modules/planted/hooks; echo ok > .git/modules/x/objects/written; exit 0`}, nil)
	if err != nil {
		return Fail, fmt.Sprintf("run failed: %v", err)
	}
	if p := e.unchanged(map[string]string{".git/modules/x/config": submoduleCfg, "x/.git": "gitdir: ../.git/modules/x\n"}); p != "" {
		return Fail, "the sandbox changed or moved " + p
	}
	// mv falls back to a copy where a rename is refused; a copy of the
	// config in the workspace runs nothing.
	if p := e.absent(".git/modules/x/hooks/post-checkout", ".git/modules/x/commondir", ".git/modules/planted"); p != "" {
		return Fail, "the sandbox created " + p
	}
	return Pass, "writes refused: " + firstLine(r.Stderr)
}

func checkEnvrc(ctx context.Context, e *env) (Outcome, string) {
	r, err := e.run(ctx, []string{"sh", "-c", unmountScript + `echo 'echo pwned' > .envrc; ln -s .husky/pre-commit .envrc; ` +
		`echo 'echo pwned' > y; mv y .envrc; mkdir .envrc; exit 0`}, nil)
	if err != nil {
		return Fail, fmt.Sprintf("run failed: %v", err)
	}
	if p := e.absent(".envrc"); p != "" {
		return Fail, "the sandbox created .envrc, which direnv runs on the host"
	}
	return Pass, "creation refused: " + firstLine(r.Stderr)
}

func checkPreCommit(ctx context.Context, e *env) (Outcome, string) {
	r, err := e.run(ctx, []string{"sh", "-c", unmountScript + `echo evil > .pre-commit-config.yaml; echo evil > new.yaml; ` +
		`mv new.yaml .pre-commit-config.yaml; rm -f .pre-commit-config.yaml; exit 0`}, nil)
	if err != nil {
		return Fail, fmt.Sprintf("run failed: %v", err)
	}
	if p := e.unchanged(map[string]string{".pre-commit-config.yaml": preCommitCfg}); p != "" {
		return Fail, "the sandbox changed or replaced .pre-commit-config.yaml, which pre-commit reads at each commit"
	}
	return Pass, "replacing refused: " + firstLine(r.Stderr)
}

// checkSecretFile reads the workspace's .env files every way a command
// might: directly, copied, hard-linked, renamed, and with a recursive
// grep of the whole workspace.
func checkSecretFile(ctx context.Context, e *env) (Outcome, string) {
	r, err := e.run(ctx, []string{"sh", "-c", unmountScript + `cat .env sub/.env.local; cp .env /tmp/copy && cat /tmp/copy; ` +
		`ln .env hard && cat hard; mv .env moved && cat moved; mv sub sub2 && cat sub2/.env.local; ` +
		`grep -r API_KEY . ; dd if=.env 2>/dev/null; exit 0`}, nil)
	if err != nil {
		return Fail, fmt.Sprintf("run failed: %v", err)
	}
	if bytes.Contains(r.Stdout, []byte(e.secret)) || bytes.Contains(r.Stderr, []byte(e.secret)) {
		return Fail, "a command read the secret in the workspace's .env"
	}
	if p := e.unchanged(map[string]string{".env": "API_KEY=" + e.secret + "\n", "sub/.env.local": "DB_PASSWORD=" + e.secret + "\n"}); p != "" {
		return Fail, "the sandbox moved or changed " + p
	}
	return Pass, "no command saw it: " + firstLine(r.Stderr)
}

// checkAbsentName looks at a protected name that does not exist from
// inside: it must read as absent. On a backend that stages, it looks the
// way the daemon runs a command, staged in a session with a stage root;
// the battery's own session, unstaged, is reported beside it. An
// unstaged backend that needs a placeholder to keep the name uncreatable
// shows it in a listing (no mount hides a name from its directory's
// listing): that is a known limit, reported as such, when the name still
// reads as absent or is an empty placeholder; anything else fails.
func checkAbsentName(ctx context.Context, e *env) (Outcome, string) {
	out, reason := absentIn(ctx, e, e.sess, nil)
	st, ok := e.backend.(sandbox.Stager)
	if !ok || !st.CanStage() {
		return out, reason
	}
	// A workspace of its own: the container's placeholders of the
	// battery's session would show in any other session of its workspace.
	ws, stageRoot := filepath.Join(e.root, "ws-staged"), filepath.Join(e.root, "stage")
	upper, work := sandbox.StageUpper(stageRoot, "absent", 0), sandbox.StageWork(stageRoot, "absent", 0)
	for _, d := range []string{filepath.Join(ws, ".git"), upper, work} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return Fail, fmt.Sprintf("cannot make the staged workspace: %v", err)
		}
	}
	sess, err := e.backend.Open(ctx, sandbox.SessionSpec{ID: "doctor-staged-" + randHex(4), Workspaces: []string{ws}, Limits: SessionLimits(), StageRoot: stageRoot})
	if err != nil {
		return Fail, fmt.Sprintf("cannot open a staged session: %v", err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = sess.Close(cctx)
	}()
	sOut, sReason := absentIn(ctx, e, sess, func(sp *sandbox.Spec) { sp.Stage, sp.Dir = &sandbox.Stage{Dir: "absent"}, ws })
	if sOut != Pass {
		return Fail, "staged, as the daemon runs commands: " + sReason
	}
	return Pass, "staged, as the daemon runs commands: " + sReason + "; unstaged: " + reason
}

// absentIn runs the look at .envrc in sess.
func absentIn(ctx context.Context, e *env, sess sandbox.Session, mod func(*sandbox.Spec)) (Outcome, string) {
	r, err := e.runIn(ctx, sess, []string{"sh", "-c", `ls -a; echo ===; cat .envrc 2>&1; test -e .envrc && echo EXISTS; ` +
		`test -d .envrc && ls -A .envrc | wc -l; readlink .envrc; exit 0`}, mod)
	if err != nil {
		return Fail, fmt.Sprintf("run failed: %v", err)
	}
	listing, rest, _ := strings.Cut(string(r.Stdout), "===\n")
	listed := false
	for _, n := range strings.Fields(listing) {
		listed = listed || n == ".envrc"
	}
	exists := strings.Contains(rest, "EXISTS")
	switch {
	case !listed && !exists:
		return Pass, ".envrc is not listed; cat says: " + firstLine([]byte(rest))
	case strings.Contains(rest, protect.LinkTarget) && !exists:
		return Limited, "ls -a lists .envrc (a pinned dangling link); cat and test -e say it is absent, creating it fails"
	case exists && strings.Contains(rest, "\n0\n"):
		return Limited, ".envrc is an empty read-only directory while the session is open (the container cannot pin a link); creating it fails"
	}
	return Fail, fmt.Sprintf(".envrc is visible as something other than a placeholder: %s", firstLine([]byte(rest)))
}
