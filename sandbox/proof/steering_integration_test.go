//go:build integration

package proof

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// steeringAttempt is one way a command tries to plant or change a
// steering file; the script gets the name as $N.
type steeringAttempt struct{ name, script string }

// The ways a shell has to create a name: each must leave it absent.
var steeringCreates = []steeringAttempt{
	{"redirect", `echo evil > "$N"`},
	{"mkdir", `mkdir -p "$N/sub"`},
	{"symlink", `ln -s /etc/passwd "$N"`},
	{"rename", `echo evil > t; mv -f t "$N"`},
	{"hard link", `echo evil > h; ln h "$N"`},
	{"through a dangling link", `ln -sf "$N" dl && echo evil > dl`},
}

// The ways to change one that exists: each must leave it as it was.
var steeringModifies = []steeringAttempt{
	{"append", `echo evil >> "$N"`},
	{"truncate", `echo evil > "$N"`},
	{"replace by rename", `echo evil > t; mv -f t "$N"`},
	{"remove", `rm -rf "$N"`},
	{"through a link", `ln -sf "$N" l && echo evil >> l`},
	{"through a hard link", `ln "$N" h && echo evil >> h`},
}

// Every kind of steering file (sandbox/protect's Steering) is refused to
// a sandboxed command on every backend, in a session that writes the
// workspace itself: a missing one cannot be created, an existing one
// cannot be changed, moved away or written through a link.
func TestSteeringFilesRefusedEveryBackend(t *testing.T) {
	var names []string
	for _, k := range protect.Steering {
		for _, n := range k.Names {
			if strings.HasPrefix(n, "*") {
				n = "team" + n[1:] // an existing one only
			}
			names = append(names, n)
		}
	}
	for _, b := range allBackends(t) {
		t.Run(b.Name(), func(t *testing.T) {
			t.Run("create", func(t *testing.T) {
				ws := steeringWorkspace(t, nil)
				s := openSession(t, b, ws)
				for _, n := range names {
					if strings.HasPrefix(n, "team.") {
						continue
					}
					r := runSteering(t, s, ws, n, steeringCreates, true)
					if _, err := os.Lstat(filepath.Join(ws, filepath.FromSlash(n))); err == nil || strings.Contains(r, "CREATED") {
						t.Errorf("%s: %s was created: %s", b.Name(), n, r)
						must(t, os.RemoveAll(filepath.Join(ws, filepath.FromSlash(n))))
					}
				}
			})
			t.Run("modify", func(t *testing.T) {
				ws := steeringWorkspace(t, names)
				s := openSession(t, b, ws)
				for _, n := range names {
					if slices.Contains(steeringDirs, n) {
						continue
					}
					r := runSteering(t, s, ws, n, steeringModifies, false)
					if got, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(n))); err != nil || string(got) != "the person's\n" {
						t.Errorf("%s: %s is now %q (%v): %s", b.Name(), n, got, err, r)
					}
				}
				// A directory kind keeps what is inside it too.
				for _, d := range steeringDirs {
					r := runSteering(t, s, ws, d+"/kept", append(steeringModifies, steeringCreates...), false)
					if got, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(d), "kept")); err != nil || string(got) != "the person's\n" {
						t.Errorf("%s: %s/kept is now %q (%v): %s", b.Name(), d, got, err, r)
					}
					if ents, _ := os.ReadDir(filepath.Join(ws, filepath.FromSlash(d))); len(ents) != 1 {
						t.Errorf("%s: %s holds %d entries: %s", b.Name(), d, len(ents), r)
					}
				}
			})
		})
	}
}

// steeringWorkspace makes a workspace (with .git and .github, so every
// name is protected) holding each of existing as a file, directories
// as directories holding one.
func steeringWorkspace(t *testing.T, existing []string) string {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	must(t, os.Mkdir(filepath.Join(ws, ".git"), 0o755), os.Mkdir(filepath.Join(ws, ".github"), 0o755),
		os.Mkdir(filepath.Join(ws, ".config"), 0o755), os.Mkdir(filepath.Join(ws, "mise"), 0o755))
	for _, n := range existing {
		p := filepath.Join(ws, filepath.FromSlash(n))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755), os.WriteFile(p, []byte("the person's\n"), 0o644))
	}
	for _, d := range steeringDirs {
		if len(existing) == 0 {
			continue
		}
		p := filepath.Join(ws, filepath.FromSlash(d))
		must(t, os.Remove(p), os.Mkdir(p, 0o755), os.WriteFile(filepath.Join(p, "kept"), []byte("the person's\n"), 0o644))
	}
	return ws
}

// steeringDirs are kinds made directories in the modify workspace.
var steeringDirs = []string{".devcontainer", ".zed", ".windsurf", ".github/prompts"}

// runSteering runs every attempt on name in one command, each from the
// workspace root, and says what each answered; with creates, what an
// attempt made is reported (CREATED) and taken away before the next.
func runSteering(t *testing.T, s sandbox.Session, ws, name string, attempts []steeringAttempt, creates bool) string {
	t.Helper()
	var script strings.Builder
	for _, a := range attempts {
		fmt.Fprintf(&script, "cd \"$WS\"; (%s) 2>/dev/null; echo %q \"exit $?\"; rm -rf t h l dl\n", a.script, a.name)
		if creates {
			// Each way on its own: what one made, the next must not find.
			script.WriteString(`if [ -e "$N" ] || [ -L "$N" ]; then echo CREATED; rm -rf "$N"; fi` + "\n")
		}
	}
	r := runSh(t, s, script.String()+"exit 0", func(sp *sandbox.Spec) {
		sp.Dir, sp.Env = ws, append(sp.Env, "WS="+ws, "N="+name)
	})
	return name + ": " + strings.Join(strings.Fields(string(r.Stdout)+" "+string(r.Stderr)), " ")
}

// A repository often links one instruction file to another (AGENTS.md
// -> CLAUDE.md, so every agent reads the same words). Both stay as they
// are: neither written through the link nor the link replaced (the
// container can only refuse a new one once the link is removed).
func TestLinkedInstructionFiles(t *testing.T) {
	for _, b := range allBackends(t) {
		t.Run(b.Name(), func(t *testing.T) {
			ws, err := filepath.EvalSymlinks(t.TempDir())
			must(t, err)
			must(t, os.Mkdir(filepath.Join(ws, ".git"), 0o755),
				os.WriteFile(filepath.Join(ws, "CLAUDE.md"), []byte("the person's\n"), 0o644),
				os.Symlink("CLAUDE.md", filepath.Join(ws, "AGENTS.md")))
			s := openSession(t, b, ws)
			r := runSteering(t, s, ws, "AGENTS.md", append(steeringModifies,
				steeringAttempt{"replace the link", `rm -f "$N"; echo evil > "$N"`},
				steeringAttempt{"relink", `ln -sfn /etc/passwd "$N"`}), false)
			if got, _ := os.ReadFile(filepath.Join(ws, "CLAUDE.md")); string(got) != "the person's\n" {
				t.Errorf("CLAUDE.md is now %q: %s", got, r)
			}
			l, err := os.Readlink(filepath.Join(ws, "AGENTS.md"))
			switch {
			case err == nil && l == "CLAUDE.md":
			case b.Name() == "container" && errors.Is(err, fs.ErrNotExist):
				// The container cannot pin a link: removing it is let
				// through (no words are planted by that), a new one not.
				t.Logf("container: the link was removed, as its known limits say: %s", r)
			default:
				t.Errorf("AGENTS.md is no longer the link to CLAUDE.md (%q, %v): %s", l, err, r)
			}
		})
	}
}
