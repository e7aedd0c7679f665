//go:build integration

package cli_test

import (
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// TestDesktopOpensOntoRunningServe: with `gatehouse serve` running, a bare
// `gatehouse` on the same data dir opens the window onto that daemon
// instead of exiting; closing the window ends that launch and leaves the
// daemon running; a second launch meanwhile shows the same window.
func TestDesktopOpensOntoRunningServe(t *testing.T) {
	a := deskStart(t, "serve")
	if w, _ := a.windowProcs(); w != 0 {
		t.Fatalf("serve started %d window processes", w)
	}
	launch := func() (*exec.Cmd, *clitest.LockedBuffer, chan struct{}) {
		cmd := exec.Command(a.bin, "--data", a.data, "--workspace", a.ws)
		cmd.Env = append(append([]string{}, a.baseEnvForSecond...),
			"DISPLAY="+a.env["DISPLAY"], "XAUTHORITY="+a.env["XAUTHORITY"], "DBUS_SESSION_BUS_ADDRESS="+a.env["DBUS_SESSION_BUS_ADDRESS"])
		log, exited := clitest.Spawn(t, cmd, "the attached launch")
		return cmd, log, exited
	}
	cmd, log, exited := launch()
	waitfor.ForState(t, 90*time.Second, "the window onto the running daemon", func() (bool, string) {
		select {
		case <-exited:
			t.Fatalf("a bare gatehouse exited while serve runs (status %d):\n%s", cmd.ProcessState.ExitCode(), log.String())
		default:
		}
		_, title, ok := a.window()
		return ok && title == "Gatehouse" && strings.Contains(log.String(), `msg="desktop page" title=Gatehouse app=true`), "window " + strconv.FormatBool(ok) + " " + title
	})
	first, _, _ := strings.Cut(log.String(), "\n")
	if want := "a Gatehouse daemon already runs on " + a.data; !strings.Contains(first, want) || !strings.Contains(first, "opening the window onto it") {
		t.Fatalf("first line %q, want it to say %q and that it opens the window onto it", first, want)
	}
	if !strings.Contains(log.String(), "--workspace apply to a daemon this launch would start") {
		t.Errorf("the launch does not say its --workspace is not used:\n%s", log.String())
	}

	// A second launch shows this window; it starts no second one.
	again := exec.Command(a.bin, "--data", a.data)
	again.Env = cmd.Env
	if out, err := again.CombinedOutput(); err != nil || !strings.Contains(string(out), "already running") {
		t.Fatalf("second launch: %v\n%s", err, out)
	}
	windows := 0
	for _, p := range deskTree(cmd.Process.Pid) {
		if p.exe == "gatehouse-desktop" {
			windows++
		}
	}
	if windows != 1 {
		t.Fatalf("%d window processes under the attached launch after a second launch, want 1", windows)
	}

	id, _, _ := a.window()
	a.key(id, "ctrl+w")
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		t.Fatalf("closing the attached window did not end the launch:\n%s", log.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit status %d after the window closed:\n%s", code, log.String())
	}
	if !regexp.MustCompile(`msg="window closed; the daemon keeps running"`).MatchString(log.String()) {
		t.Errorf("no word that the daemon keeps running:\n%s", log.String())
	}
	if code, _ := a.api("GET", "/api/v1/status", nil); code != http.StatusOK {
		t.Fatalf("serve does not answer after the window closed: %d", code)
	}
}
