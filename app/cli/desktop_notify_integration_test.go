//go:build integration

package cli_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// TestDesktopNotificationButtonsDecide: with the window hidden, a card's
// notification carries Allow once and Deny. The same signal from anyone
// but the notification server decides nothing; from the server, Allow
// once runs the call and Deny denies the next one.
func TestDesktopNotificationButtonsDecide(t *testing.T) {
	a := deskStart(t, "desktop", "--start-hidden")
	server, notes := a.ownNotifications()
	s := a.mcp(t.Context())

	allowed := deskAsk(t.Context(), s, "echo allowed-from-notification")
	ap := a.waitApproval("echo allowed-from-notification")
	note := a.nextNote(notes)
	if !strings.Contains(note.body, "echo allowed-from-notification") || len(note.actions) != 6 {
		t.Fatalf("notification: %+v", note)
	}

	// Anyone on the session bus can emit ActionInvoked; an agent's process
	// that reaches the bus must not approve its own call.
	forger, err := dbus.Connect(a.env["DBUS_SESSION_BUS_ADDRESS"])
	if err != nil {
		t.Fatal(err)
	}
	defer forger.Close()
	if err := forger.Emit("/org/freedesktop/Notifications", "org.freedesktop.Notifications.ActionInvoked", note.id, "allow-once"); err != nil {
		t.Fatal(err)
	}
	// Time passes: the test is that the forged signal decides nothing in it.
	// A decision tried from the notification logs one of these lines,
	// taken or not.
	triedRe := regexp.MustCompile(`msg="(decided from the notification|the notification's decision was not taken)"`)
	waitfor.Never(t, 1500*time.Millisecond, "a forged Allow once was acted on or ran the call", func() bool {
		return len(allowed) > 0 || triedRe.MatchString(a.log.String())
	})
	if got := a.approvals(); len(got) != 1 || got[0].ID != ap.ID {
		t.Fatalf("a forged Allow once decided the card: pending %+v", got)
	}
	select {
	case r := <-allowed:
		t.Fatalf("a forged Allow once ran the call: %+v", r)
	default:
	}
	t.Log("a forged ActionInvoked (not from the notification server) decided nothing")

	// The notification server's own signal: the person pressed Allow once.
	if err := server.Emit("/org/freedesktop/Notifications", "org.freedesktop.Notifications.ActionInvoked", note.id, "allow-once"); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-allowed:
		if r.err != nil || r.res.IsError || !strings.Contains(deskText(r.res), "allowed-from-notification") {
			t.Fatalf("allowed call: %v %+v %q", r.err, r.res, deskText(r.res))
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("Allow once on the notification did not run the call:\n%s", a.log.String())
	}
	a.waitLog("decided from the notification", regexp.MustCompile(`msg="decided from the notification" approval=`+ap.ID+` decision=allow`), 5*time.Second)

	denied := deskAsk(t.Context(), s, "echo denied-from-notification")
	a.waitApproval("echo denied-from-notification")
	note = a.nextNote(notes)
	if err := server.Emit("/org/freedesktop/Notifications", "org.freedesktop.Notifications.ActionInvoked", note.id, "deny"); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-denied:
		if r.err != nil || !r.res.IsError || !strings.Contains(deskText(r.res), "denied from the desktop notification") {
			t.Fatalf("denied call: %v %+v %q", r.err, r.res, deskText(r.res))
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("Deny on the notification did not deny the call:\n%s", a.log.String())
	}
	var decidedBy []string
	var out struct {
		Events []struct {
			Actor   string         `json:"actor"`
			Payload map[string]any `json:"payload"`
		} `json:"events"`
	}
	a.apiJSON("GET", "/api/v1/events?kind=approval.decided", nil, &out)
	for _, e := range out.Events {
		decidedBy = append(decidedBy, e.Actor+":"+e.Payload["status"].(string))
	}
	if strings.Join(decidedBy, ",") != "human:allowed,human:denied" {
		t.Fatalf("approval.decided in the audit: %v", decidedBy)
	}

	// A card still waiting when Gatehouse is stopped is denied, its agent
	// answered (SIGTERM asks nothing: the system is stopping).
	last := deskAsk(t.Context(), s, "echo waiting-at-sigterm")
	a.waitApproval("echo waiting-at-sigterm")
	a.stop()
	select {
	case r := <-last:
		if r.err != nil || !r.res.IsError || !strings.Contains(deskText(r.res), "Gatehouse was stopped") {
			t.Fatalf("call waiting at SIGTERM: %v %+v %q", r.err, r.res, deskText(r.res))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call waiting at SIGTERM got no answer")
	}
}
