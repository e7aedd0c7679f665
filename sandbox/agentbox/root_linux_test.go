package agentbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// rootProbe prints, for each path it is given, what a process in the
// sandbox finds there (file, directory or nothing), what it reads (the
// start of a file, or whether a directory lists) and whether it may
// write it or make something in it; then its capabilities, and the
// mount table as mount point, read-only or not, and filesystem, sorted
// (the sandbox's own procfs's covers left out: bwrap covered only those
// it could write), and what the root and /dev hold.
const rootProbe = `for p in "$@"; do
  if [ -d "$p" ]; then
    if ls "$p" >/dev/null 2>&1; then r=lists; else r=unlisted; fi
    if ( : > "$p/.probe" ) 2>/dev/null; then w=made-in; rm -f "$p/.probe"; else w=nothing-made; fi
    echo "$p dir $r $w"
  elif [ -e "$p" ] || [ -L "$p" ]; then
    r=$(head -c 24 "$p" 2>/dev/null | tr -c 'A-Za-z0-9#=' _)
    if ( : >> "$p" ) 2>/dev/null; then w=writable; else w=read-only; fi
    echo "$p file ${r:-unread} $w"
  else
    if ( : > "$p" ) 2>/dev/null; then w=made; rm -f "$p"; else w=not-made; fi
    echo "$p none - $w"
  fi
done
grep CapEff /proc/self/status
echo MOUNTS
awk '{ s = 0; for (i = 7; i <= NF; i++) if ($i == "-") { s = i; break }; split($6, o, ","); print $5, o[1], $(s + 1) }' /proc/self/mountinfo | grep -v '^/proc/' | sort
echo ROOT
stat -c '%n %F %a' /* /dev/* | sort
hostname; echo "PWD=$PWD"; pwd`

// capEff is the effective capability set the probe printed.
func capEff(out string) (uint64, bool) {
	for l := range strings.Lines(out) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "CapEff:"); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// rootFixture lays out a workspace, a home and an agent's state in dir,
// and returns the Spec of a run over them with the probe as its agent,
// and the paths the probe looks at.
func rootFixture(t *testing.T, dir, self, bw, sh string) (Spec, []string) {
	t.Helper()
	ws := filepath.Join(dir, "ws")
	home := filepath.Join(dir, "home")
	own := filepath.Join(dir, "agent-home")
	tools := filepath.Join(dir, "tools")
	data := filepath.Join(dir, "data")
	for _, d := range []string{ws, filepath.Join(ws, "secrets"), filepath.Join(ws, "claude-real"), filepath.Join(ws, ".git", "hooks"),
		home, filepath.Join(home, ".agent"), own, tools, filepath.Join(data, "shown")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, body := range map[string]string{
		filepath.Join(ws, ".env"):                  "API_KEY=probe-secret-4411\n",
		filepath.Join(ws, "secrets", "token"):      "TOKEN=probe-secret-4412\n",
		filepath.Join(ws, "CLAUDE.md"):             "steer\n",
		filepath.Join(ws, ".git", "hooks", "pre"):  "hook\n",
		filepath.Join(ws, "claude-real", "s.json"): "settings\n",
		filepath.Join(ws, "main.go"):               "package main\n",
		filepath.Join(home, ".gitconfig"):          "[user]\n",
		filepath.Join(home, ".agent", "state"):     "state\n",
		filepath.Join(home, ".agent", "settings"):  "agent-settings\n",
		filepath.Join(home, "canary"):              "CANARY-home\n",
		filepath.Join(tools, "tool"):               "tool\n",
		filepath.Join(data, "db"):                  "DATA-db\n",
		filepath.Join(data, "shown", "copy"):       "redacted\n",
	} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A protected name that is a link: what it leads to is kept read-only.
	if err := os.Symlink("claude-real", filepath.Join(ws, ".claude")); err != nil {
		t.Fatal(err)
	}
	paths := []string{
		ws, filepath.Join(ws, "main.go"), filepath.Join(ws, "new-file"),
		filepath.Join(ws, ".env"), filepath.Join(ws, "secrets"), filepath.Join(ws, "secrets", "token"),
		filepath.Join(ws, "CLAUDE.md"), filepath.Join(ws, ".git", "hooks"), filepath.Join(ws, ".git", "hooks", "pre"),
		filepath.Join(ws, ".claude"), filepath.Join(ws, ".claude", "s.json"), filepath.Join(ws, "claude-real", "new"),
		home, filepath.Join(home, "canary"), filepath.Join(home, ".gitconfig"),
		filepath.Join(home, ".agent"), filepath.Join(home, ".agent", "state"), filepath.Join(home, ".agent", "settings"),
		tools, filepath.Join(tools, "tool"), data, filepath.Join(data, "db"), filepath.Join(data, "shown", "copy"),
		"/tmp", "/tmp/new", "/etc/hostname", "/etc/new", "/usr", "/", "/new-at-root", "/proc/sys/kernel/hostname",
		"/dev/null", "/dev/shm", "/dev/pts", self, RunInfoPath, "/.gatehouse-host",
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { devnull.Close() })
	s := Spec{
		Bwrap: bw, Init: self, Dir: ws, Home: home, HomeDir: own, Workspaces: []string{ws}, AgentPort: 47313,
		Argv:         append([]string{sh, "-c", rootProbe, "probe"}, paths...),
		Env:          []string{"PATH=/usr/bin:/bin", "PWD=/somewhere-else"},
		Protected:    []string{filepath.Join(ws, "CLAUDE.md"), filepath.Join(ws, ".git", "hooks"), filepath.Join(ws, ".claude")},
		Hidden:       []string{data, filepath.Join(ws, ".env"), filepath.Join(ws, "secrets")},
		ReadOnly:     []string{tools},
		ReadWrite:    []string{filepath.Join(home, ".agent")},
		ReadOnlyOver: []string{filepath.Join(home, ".agent", "settings")},
		Shown:        []string{filepath.Join(data, "shown")},
		Info:         RunInfo{Run: "probe"},
		Stdin:        devnull, Stdout: nil, Stderr: nil,
	}
	return s, paths
}

// runProbe starts the probe in a sandbox over a fresh fixture in dir
// (the same paths each time) and returns what it printed.
func runProbe(t *testing.T, dir, bw string, bwrap bool) string {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	s, _ := rootFixture(t, dir, self, bw, sh)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s.Stdout, s.Stderr = w, w
	useBwrap = bwrap
	defer func() { useBwrap = false }()
	b, err := Start(t.Context(), s)
	w.Close()
	if err != nil {
		t.Fatalf("start the sandbox (bwrap %v): %v", bwrap, err)
	}
	if _, err := out.ReadFrom(r); err != nil {
		t.Fatal(err)
	}
	code, err := b.Wait()
	if err != nil || code != 0 {
		t.Fatalf("the probe ended with %d %v:\n%s", code, err, out.String())
	}
	return out.String()
}

// TestRootRefuses: the sandbox the first process makes itself, with the
// new mount API, keeps what it must out of a real process's reach: the
// secrets read as stand-ins, a hidden directory and the data dir empty
// and closed, the protected paths (a link's target too) and the
// settings read-only, the host's root it cloned from gone, no capability
// left but root's (as bwrap leaves them); and the workspace, the agent's
// state and the fresh /tmp writable. (The capabilities that reach past
// the run's walls are taken later, in the run's first process:
// reach_linux.go.) bubblewrap, given the same list, gives the same file
// system, the same mounts and the same answers.
func TestRootRefuses(t *testing.T) {
	if !ownNamespaces() {
		t.Skip("this kernel keeps user namespaces from unprivileged programs; bubblewrap makes the sandbox")
	}
	dir := filepath.Join(t.TempDir(), "fixture")
	got := runProbe(t, dir, "", false)
	t.Logf("probe:\n%s", got)
	line := func(p string) string {
		for l := range strings.Lines(got) {
			if strings.HasPrefix(l, p+" ") {
				return strings.TrimSpace(l)
			}
		}
		t.Fatalf("the probe said nothing of %s:\n%s", p, got)
		return ""
	}
	ws, home, data := filepath.Join(dir, "ws"), filepath.Join(dir, "home"), filepath.Join(dir, "data")
	for p, want := range map[string]string{
		filepath.Join(ws, "main.go"):              "file package_main_ writable",
		filepath.Join(ws, "new-file"):             "none - made",
		filepath.Join(ws, ".env"):                 "file ######################## read-only",
		filepath.Join(ws, "secrets"):              "dir lists nothing-made",
		filepath.Join(ws, "secrets", "token"):     "none - not-made",
		filepath.Join(ws, "CLAUDE.md"):            "file steer_ read-only",
		filepath.Join(ws, ".git", "hooks"):        "dir lists nothing-made",
		filepath.Join(ws, ".git", "hooks", "pre"): "file hook_ read-only",
		filepath.Join(ws, ".claude", "s.json"):    "file settings_ read-only",
		filepath.Join(ws, "claude-real", "new"):   "none - not-made",
		filepath.Join(home, "canary"):             "none - made",
		filepath.Join(home, ".gitconfig"):         "file _user__ read-only",
		filepath.Join(home, ".agent", "state"):    "file state_ writable",
		filepath.Join(home, ".agent", "settings"): "file agent_settings_ read-only",
		filepath.Join(dir, "tools", "tool"):       "file tool_ read-only",
		filepath.Join(data, "db"):                 "none - not-made",
		filepath.Join(data, "shown", "copy"):      "file redacted_ read-only",
		"/tmp/new":                                "none - made",
		"/etc/new":                                "none - not-made",
		"/proc/sys/kernel/hostname":               "file gatehouse_ read-only",
		"/":                                       "dir lists nothing-made",
		"/new-at-root":                            "none - not-made",
		"/.gatehouse-host":                        "none - not-made",
	} {
		if l := line(p); l != p+" "+want {
			t.Errorf("%s\n\twant %s", l, want)
		}
	}
	for _, leak := range []string{"probe-secret", "CANARY-home", "DATA-db"} {
		if strings.Contains(got, leak) {
			t.Errorf("the sandbox read %s", leak)
		}
	}
	wantCaps := "CapEff:\t0000000000000000"
	if os.Getuid() == 0 {
		wantCaps = "CapEff:\t" // root keeps root's, as under bwrap (compared below)
	}
	for _, want := range []string{wantCaps, "\ngatehouse\n", "PWD=" + ws + "\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("the probe's output lacks %q", want)
		}
	}
	// Whoever started the run, the agent holds neither capability that
	// reaches past the run's walls (reach_linux.go), here where no
	// protected name is missing and no creation guard runs (the run
	// tests cover the guarded start).
	if eff, ok := capEff(got); !ok || eff&(1<<unix.CAP_SYS_ADMIN|1<<unix.CAP_SYS_PTRACE) != 0 {
		t.Errorf("the agent holds CAP_SYS_ADMIN or CAP_SYS_PTRACE: CapEff %x (read: %v)", eff, ok)
	}
	_, table, _ := strings.Cut(got, "\nMOUNTS\n")
	if strings.Contains(table, "\n/.gatehouse-host ") {
		t.Error("the host's root is in the sandbox's mount table")
	}

	bw, err := exec.LookPath("bwrap")
	if err != nil {
		t.Logf("no bubblewrap to compare with: %v", err)
		return
	}
	old := runProbe(t, dir, bw, true)
	strip := func(s string) string {
		var out []string
		for l := range strings.Lines(s) {
			// bwrap covers only the parts of /proc it could write.
			if !strings.HasPrefix(l, "/proc/sys/") {
				out = append(out, l)
			}
		}
		return strings.Join(out, "")
	}
	if strip(got) != strip(old) {
		t.Errorf("the sandbox differs from bubblewrap's:\n--- bubblewrap\n%s\n--- first process\n%s", old, got)
	}
}
