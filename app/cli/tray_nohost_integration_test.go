//go:build integration

package cli_test

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/app/tray"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// TestTrayWithoutHostSaysWhereTheKillSwitchIs: in a session where nothing
// shows tray icons (no owner of org.kde.StatusNotifierWatcher) the tray
// says so plainly, with where the kill switch is instead, never that its
// icon started or the library's raw error; when a tray host appears later
// the icon registers with it and the log says it is shown.
func TestTrayWithoutHostSaysWhereTheKillSwitchIs(t *testing.T) {
	requireTools(t, "dbus-daemon", "Xvfb")
	bin := trayBinary(t)
	d := clitest.Start(t)
	display := ":" + startWithFD3(t, "Xvfb", exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "640x480x24", "-nolisten", "tcp"))
	busAddr := startWithFD3(t, "dbus-daemon", exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=3"))
	var env []string
	for _, kv := range d.Env() {
		if !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") && !strings.HasPrefix(kv, "DISPLAY=") {
			env = append(env, kv)
		}
	}
	env = append(env, "DISPLAY="+display, "DBUS_SESSION_BUS_ADDRESS="+busAddr)
	cmd := exec.Command(bin, "tray", "--data", d.Data)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	log, exited := clitest.Spawn(t, cmd, "the tray")

	waitfor.For(t, 30*time.Second, "the tray to say there is no tray here", func() bool {
		return strings.Contains(log.String(), "no tray here")
	})
	for _, want := range []string{tray.WatcherName, "the kill switch (Stop all agents now) is in the Gatehouse window", "gatehouse kill"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the tray's word on the missing host lacks %q:\n%s", want, log.String())
		}
	}
	// The tray has run a while: the test is that it never claims its icon
	// shows, nor passes on the library's raw error.
	waitfor.Never(t, 2*time.Second, "the tray claimed a visible icon or logged systray's raw error", func() bool {
		l := log.String()
		return strings.Contains(l, "tray icon shown") || strings.Contains(l, "tray icon started") || strings.Contains(l, "systray error")
	})
	select {
	case <-exited:
		t.Fatalf("the tray exited without a host; it should wait for one:\n%s", log.String())
	default:
	}

	// A panel that hosts tray icons starts: the icon registers with it.
	conn, err := dbus.Connect(busAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	w := exportWatcher(t, conn)
	select {
	case <-w.items:
	case <-time.After(30 * time.Second):
		t.Fatalf("the tray did not register with the host that appeared:\n%s", log.String())
	}
	waitfor.For(t, 10*time.Second, "the tray to say its icon is shown", func() bool {
		return strings.Contains(log.String(), "a tray host appeared; tray icon shown")
	})
}
