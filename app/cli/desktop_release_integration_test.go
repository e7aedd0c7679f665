//go:build integration

package cli_test

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

var deskShownRe = regexp.MustCompile(`msg="window shown" took_ms=(\d+)`)

// shownTimes are the "window shown" latencies logged so far.
func (a *deskApp) shownTimes() []int {
	var out []int
	for _, m := range deskShownRe.FindAllStringSubmatch(a.log.String(), -1) {
		n, _ := strconv.Atoi(m[1])
		out = append(out, n)
	}
	return out
}

// relaunch is a second launch on the app's data dir (what the launcher
// does); it shows the running app's window.
func (a *deskApp) relaunch() {
	a.t.Helper()
	cmd := exec.Command(a.bin, "--listen", "127.0.0.1:0", "--data", a.data, "--workspace", a.ws)
	cmd.Env = append(append([]string{}, a.baseEnvForSecond...),
		"DISPLAY="+a.env["DISPLAY"], "XAUTHORITY="+a.env["XAUTHORITY"], "DBUS_SESSION_BUS_ADDRESS="+a.env["DBUS_SESSION_BUS_ADDRESS"])
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "already running") || strings.Contains(string(out), "opening the window onto it") {
		a.t.Fatalf("second launch: %v\n%s", err, out)
	}
}

// TestDesktopReleasesHiddenWindow: a hidden window gives its process and
// WebKit's back after the release delay, and comes back when opened; a
// window opened again within the delay shows at once. The memory and the
// show times are reported (bench/desktop measures them properly).
func TestDesktopReleasesHiddenWindow(t *testing.T) {
	a := deskStart(t, "desktop", "--window-release", "2s")
	a.waitLog("page rendered", regexp.MustCompile(`msg="desktop page" title=Gatehouse app=true cards=0 feed=live visible=true`), 60*time.Second)
	id := a.waitTitle("Gatehouse", 10*time.Second)
	shown := a.memory()

	a.key(id, "ctrl+w")
	a.waitLog("released", regexp.MustCompile(`msg="window released while hidden"`), 20*time.Second)
	a.waitFor(10*time.Second, "window and WebKit processes gone, a spare in their place", func() (bool, string) {
		w, k := a.windowProcs()
		s := a.spareProcs()
		return w == 0 && k == 0 && s == 1, strconv.Itoa(w) + " window, " + strconv.Itoa(k) + " WebKit, " + strconv.Itoa(s) + " spare processes"
	})
	// A reported figure, not a condition: the app gets a second at rest
	// before its memory is read.
	time.Sleep(time.Second)
	hidden := a.memory()

	before := len(a.shownTimes())
	a.relaunch()
	a.waitFor(30*time.Second, "the released window shown again", func() (bool, string) {
		return len(a.shownTimes()) > before, "no window shown line"
	})
	id = a.waitTitle("Gatehouse", 10*time.Second)
	cold := a.shownTimes()[before]

	a.key(id, "ctrl+w")
	a.waitLog("hidden again", regexp.MustCompile(`(?s)window released while hidden.*window hidden; Gatehouse keeps running`), 10*time.Second)
	before = len(a.shownTimes())
	a.relaunch()
	a.waitFor(10*time.Second, "the hidden window shown again", func() (bool, string) {
		return len(a.shownTimes()) > before, "no window shown line"
	})
	warm := a.shownTimes()[before]
	if w, _ := a.windowProcs(); w != 1 {
		t.Fatalf("%d window processes after showing it again within the delay, want 1 (the same)", w)
	}
	t.Logf("memory, window shown: %v", shown)
	t.Logf("memory, window hidden and released: %v", hidden)
	t.Logf("window shown again: %d ms after release (the spare window process opens it), %d ms while hidden within the delay", cold, warm)
	a.stop()
}

// TestDesktopWithoutWindowProgramFallsBack: a gatehouse with a display but
// no gatehouse-desktop next to it says so in one line and runs the
// headless daemon.
func TestDesktopWithoutWindowProgramFallsBack(t *testing.T) {
	bin := clitest.Binary(t) // built alone: nothing next to it but the sandbox helper
	if _, err := os.Stat(clitest.DesktopWindow(bin)); err == nil {
		t.Fatalf("%s unexpectedly exists", clitest.DesktopWindow(bin))
	}
	base := t.TempDir()
	log := startFallback(t, bin, base, "DISPLAY=:99")
	first, _, _ := strings.Cut(log.String(), "\n")
	if !strings.Contains(first, "gatehouse-desktop is not installed next to this gatehouse") || !strings.Contains(first, "headless daemon") {
		t.Fatalf("first line %q", first)
	}
}

// TestDesktopProgramHandsOver: gatehouse-desktop started as the app hands
// the app to the small gatehouse next to it (same process, same
// arguments), which then starts gatehouse-desktop only for the window.
func TestDesktopProgramHandsOver(t *testing.T) {
	a := deskStartProgram(t, clitest.DesktopWindow(deskBinary(t)), "desktop")
	cl, err := os.ReadFile("/proc/" + strconv.Itoa(a.pid) + "/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(strings.TrimRight(string(cl), "\x00"), "\x00")
	if len(args) < 2 || args[0] != a.bin || args[1] != "desktop" {
		t.Fatalf("after the hand-over pid %d runs %q, want %s desktop …", a.pid, args, a.bin)
	}
	stat, _ := os.ReadFile("/proc/" + strconv.Itoa(a.pid) + "/stat")
	fields := strings.Fields(string(stat)[strings.LastIndex(string(stat), ")")+1:])
	parent, _ := os.ReadFile("/proc/" + fields[1] + "/cmdline")
	if !strings.Contains(string(parent), "xvfb-run") {
		t.Fatalf("the app's parent is %q, not the xvfb-run that started gatehouse-desktop: not the same process", parent)
	}
	a.waitFor(60*time.Second, "the window process", func() (bool, string) {
		w, _ := a.windowProcs()
		return w == 1, strconv.Itoa(w) + " window processes"
	})
	a.stop()
}
