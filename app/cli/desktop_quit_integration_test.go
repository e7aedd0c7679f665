//go:build integration

package cli_test

import (
	"bufio"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/app/desktop"
)

// dialog waits for the quit question's window and returns its id.
func (a *deskApp) dialog() string {
	a.t.Helper()
	var id string
	a.waitFor(20*time.Second, "the quit question on screen", func() (bool, string) {
		for _, line := range strings.Split(a.tree(), "\n") {
			if m := deskTreeLine.FindStringSubmatch(line); m != nil && m[2] == deskQuitTitle {
				id = m[1]
				return a.mapState(id) == "IsViewable", "mapped? " + id
			}
		}
		return false, "no window titled " + deskQuitTitle
	})
	return id
}

// quitThroughBus sends what the tray's "Quit Gatehouse" sends: --quit to
// the running app over D-Bus. The connection stays open until the test
// ends, as the tray's does.
func (a *deskApp) quitThroughBus() {
	a.t.Helper()
	conn, err := dbus.Connect(a.env["DBUS_SESSION_BUS_ADDRESS"])
	if err != nil {
		a.t.Fatal(err)
	}
	a.t.Cleanup(func() { conn.Close() })
	name, path := desktop.InstanceBus(a.data)
	if call := conn.Object(name, dbus.ObjectPath(path)).Call(name+".SendMessage", 0, `{"Args":["--quit"]}`); call.Err != nil {
		a.t.Fatalf("quit through the bus: %v", call.Err)
	}
}

// auditExport reads the data dir's audit log with the daemon stopped.
func (a *deskApp) auditExport() []map[string]any {
	a.t.Helper()
	env := append([]string{}, a.baseEnvForSecond...)
	out, errOut, code := clitest.Run(a.t.Context(), a.t, a.bin, env, "--data", a.data, "audit", "verify")
	if code != 0 {
		a.t.Fatalf("audit verify after the quit: %d %s %s", code, out, errOut)
	}
	out, errOut, code = clitest.Run(a.t.Context(), a.t, a.bin, env, "--data", a.data, "audit", "export")
	if code != 0 {
		a.t.Fatalf("audit export: %d %s", code, errOut)
	}
	var events []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			a.t.Fatalf("export line %q: %v", sc.Text(), err)
		}
		events = append(events, e)
	}
	return events
}

// TestDesktopQuitAsksFirst: quitting with a card waiting asks in the
// window. From the tray's Quit Gatehouse, "Keep running" keeps everything
// as it was; Ctrl+Q then "Quit and deny" denies the call, answers its
// agent and records both before the daemon stops.
func TestDesktopQuitAsksFirst(t *testing.T) {
	a := deskStart(t)
	a.waitLog("page rendered", regexp.MustCompile(`msg="desktop page" title=Gatehouse app=true`), 60*time.Second)
	s := a.mcp(t.Context())
	done := deskAsk(t.Context(), s, "echo waiting-at-quit")
	ap := a.waitApproval("echo waiting-at-quit")
	a.waitTitle("(1) Gatehouse", 20*time.Second)

	a.quitThroughBus()
	d := a.dialog()
	a.screenshot("desktop-quit-question.png")
	a.key(d, "alt+k") // _Keep running
	a.waitLog("quit cancelled", regexp.MustCompile(`msg="quit cancelled; Gatehouse keeps running" waiting=1`), 10*time.Second)
	if len(a.approvals()) != 1 {
		t.Fatalf("after Keep running the card is gone: %+v", a.approvals())
	}
	select {
	case r := <-done:
		t.Fatalf("the waiting call was answered although the person kept Gatehouse running: %+v", r)
	default:
	}

	// Ctrl+Q in the window, then Quit and deny.
	id, _, ok := a.window()
	if !ok {
		t.Fatal("no window")
	}
	a.key(id, "ctrl+q")
	d = a.dialog()
	a.key(d, "alt+q") // _Quit and deny
	select {
	case <-a.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("the app did not stop after Quit and deny:\n%s", a.log.String())
	}
	if code := a.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit status %d after the quit:\n%s", code, a.log.String())
	}
	var r deskResult
	select {
	case r = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting agent got no answer after the quit")
	}
	if r.err != nil || !r.res.IsError || !strings.Contains(deskText(r.res), "the person quit Gatehouse") {
		t.Fatalf("the waiting call's answer: %v %+v %q", r.err, r.res, deskText(r.res))
	}
	if strings.Contains(a.log.String(), "audit store is closed") {
		t.Fatalf("events were lost after the audit store closed:\n%s", a.log.String())
	}
	var decided, answered bool
	for _, e := range a.auditExport() {
		p, _ := e["payload"].(map[string]any)
		switch {
		case e["kind"] == "approval.decided" && p["approval"] == ap.ID:
			decided = p["by"] == "human" && p["status"] == "denied"
		case (e["kind"] == "tool.denied" || e["kind"] == "tool.result") && e["call_id"] != "" && decided:
			answered = true
		}
	}
	if !decided || !answered {
		t.Fatalf("audit: the denial by the person recorded %v, then the call's result %v", decided, answered)
	}
}

// TestDesktopQuitWithoutCardsDoesNotAsk: nothing waiting, the tray's quit
// quits at once.
func TestDesktopQuitWithoutCardsDoesNotAsk(t *testing.T) {
	a := deskStart(t, "desktop", "--start-hidden")
	a.waitLog("tray started", regexp.MustCompile(`msg="tray process started"`), 30*time.Second)
	a.quitThroughBus()
	select {
	case <-a.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("the app did not quit:\n%s", a.log.String())
	}
	if code := a.cmd.ProcessState.ExitCode(); code != 0 || !strings.Contains(a.log.String(), `msg="quit; stopping Gatehouse"`) {
		t.Fatalf("exit status %d; the app did not stop for the quit:\n%s", code, a.log.String())
	}
	if strings.Contains(a.log.String(), "asking first") {
		t.Fatal("asked before quitting with nothing waiting")
	}
}
