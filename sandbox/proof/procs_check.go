package proof

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/proctree"
)

// What a command may learn of, or do to, another session's running
// command. bwrap and the container give each run a PID namespace of its
// own; Landlock has none, so there the other command is listed, and what
// must hold is that nothing beyond its command line is reachable.

// otherProbe looks at every process but its own whose command line holds
// the marker (passed in two pieces, so the probe's own command line does
// not hold it) and says what it could do there.
const otherProbe = `m="$1$2"
for p in /proc/[0-9]*; do
  pid=${p#/proc/}
  [ "$pid" = "$$" ] && continue
  # No child's command line may hold the marker: compare in the shell.
  c=$(tr '\0' ' ' < $p/cmdline 2>/dev/null)
  case "$c" in *"$m"*) ;; *) continue ;; esac
  echo "SEEN-ARGV $pid"
  v=$(tr '\0' ' ' < $p/environ 2>/dev/null)
  case "$v" in *"$m"*) echo READ-ENVIRON ;; esac
  # Listing fd/ needs only the owner's uid; where each leads is checked.
  readlink $p/fd/1 > /dev/null 2>&1 && echo READ-FD
  readlink $p/cwd > /dev/null 2>&1 && echo READ-CWD
  head -c 1 $p/mem > /dev/null 2>&1 && echo READ-MEM
  kill -0 "$pid" 2>/dev/null && echo CAN-SIGNAL
done
echo PROBED`

// otherReached are the probe's findings that fail the check, and what each
// means.
var otherReached = []struct{ mark, what string }{
	{"READ-ENVIRON", "its environment"},
	{"READ-FD", "its open files"},
	{"READ-CWD", "its working directory"},
	{"READ-MEM", "its memory"},
	{"CAN-SIGNAL", "signals to it"},
}

// OtherSessionsVisible is the Limited reason where another session's
// command is listed: the README and doctor say exactly this much.
const OtherSessionsVisible = "another session's command is listed with its PID and command line (no PID namespace); its environment, open files, working directory, memory and signals are refused"

func checkOtherSessions(ctx context.Context, e *env) (Outcome, string) {
	other, err := e.backend.Open(ctx, sandbox.SessionSpec{ID: "doctor-other-" + randHex(4), Workspaces: []string{e.ws}, Limits: SessionLimits()})
	if err != nil {
		return Fail, fmt.Sprintf("cannot open a second session: %v", err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = other.Close(cctx)
	}()
	marker := "gatehouse-other-" + randHex(6)
	victimCtx, stopVictim := context.WithCancel(ctx)
	victimDone := make(chan struct{})
	go func() {
		defer close(victimDone)
		// sh stays (the sleep is not its last command), so its command
		// line and environment keep the marker.
		_, _ = e.runIn(victimCtx, other, []string{"sh", "-c", "sleep 60; :", marker}, func(s *sandbox.Spec) {
			s.Env = append(s.Env, "GATEHOUSE_OTHER="+marker)
		})
	}()
	defer func() { stopVictim(); <-victimDone }()
	isVictim := func(pid int) bool { return slices.Contains(proctree.Cmdline(pid), marker) }
	if !waitSeen(ctx, isVictim, 30*time.Second) {
		return Fail, "the other session's command never started"
	}
	half := len(marker) / 2
	r, err := e.run(ctx, []string{"sh", "-c", otherProbe, "sh", marker[:half], marker[half:]}, nil)
	if err != nil {
		return Fail, fmt.Sprintf("run failed: %v", err)
	}
	if !bytes.Contains(r.Stdout, []byte("PROBED")) {
		return Fail, "the probe did not finish: " + firstLine(r.Stderr)
	}
	var reached []string
	for _, f := range otherReached {
		if bytes.Contains(r.Stdout, []byte(f.mark)) {
			reached = append(reached, f.what)
		}
	}
	switch {
	case len(reached) > 0:
		return Fail, "a command reached another session's command: " + strings.Join(reached, ", ")
	case bytes.Contains(r.Stdout, []byte("SEEN-ARGV")):
		return Limited, OtherSessionsVisible
	}
	return Pass, "another session's command is out of sight (a PID namespace per run)"
}

// waitSeen waits until a matching process runs, or timeout or ctx ends.
func waitSeen(ctx context.Context, match func(int) bool, timeout time.Duration) bool {
	deadline := time.After(timeout)
	for killMatching(match, 0) == 0 {
		select {
		case <-ctx.Done():
			return false
		case <-deadline:
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
	return true
}
