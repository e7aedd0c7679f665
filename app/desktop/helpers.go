// Package desktop is the Gatehouse desktop app: the daemon, the tray icon
// (a process of its own), desktop notifications whose buttons decide
// cards, and the window, a process of its own too (package window) that
// runs only while the person wants it. This package links neither GTK nor
// WebKit, so it runs in the small gatehouse binary; the window is
// gatehouse-desktop. Agents reach the daemon over loopback TCP, the window
// over the same-user control socket.
package desktop

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
)

// AppName is the window title and the name notifications go out under.
const AppName = "Gatehouse"

// HasDisplay reports whether a window can be opened: on Linux an X11 or
// Wayland display must be named in the environment; macOS and Windows
// always have one.
func HasDisplay(goos string, getenv func(string) string) bool {
	switch goos {
	case "darwin", "windows":
		return true
	}
	return getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != ""
}

// UniqueID is the single-instance identity for one data directory: a second
// launch against the same data dir raises the first window, while a
// Gatehouse on another data dir (a test, a second profile) runs alongside.
func UniqueID(dataDir string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(dataDir)))
	return "dev.gatehouse.desktop.d" + hex.EncodeToString(sum[:6])
}

// InstanceBus is the D-Bus name and object path the app running on
// dataDir answers on (its SendMessage takes {"Args": [...]}).
func InstanceBus(dataDir string) (name, path string) { return singleInstanceBus(UniqueID(dataDir)) }

// singleInstanceBus is the D-Bus name and object path Wails (v2, Linux)
// exports for a SingleInstanceLock with this UniqueId. The pre-check in
// instance_linux.go speaks the same protocol so a second launch never gets
// as far as starting a second daemon.
func singleInstanceBus(uniqueID string) (name, path string) {
	id := "wails_app_" + strings.ReplaceAll(strings.ReplaceAll(uniqueID, "-", "_"), ".", "_")
	return "org." + id + ".SingleInstance", "/org/" + id + "/SingleInstance"
}

// notificationText is the title and body of the desktop notification for
// a new card (an approval.requested payload). The text comes from the agent's call, so the caller escapes
// it for the notification system; here it is only shortened.
func notificationText(ev approval.Request, pending int) (title, body string) {
	title = "Gatehouse: an agent is waiting for you"
	var what string
	switch ev.Kind {
	case approval.KindQuestion:
		title = "Gatehouse: an agent has a question"
		what = ev.Question
	case approval.KindLimit:
		title = "Gatehouse: a session spent its budget"
		what = ev.Reason
	default:
		switch {
		case len(ev.Argv) > 0:
			what = strings.Join(ev.Argv, " ")
		case ev.URL != "":
			what = ev.Tool + " " + ev.URL
		case len(ev.Paths) > 0:
			what = ev.Tool + " " + strings.Join(ev.Paths, ", ")
		default:
			what = ev.Tool
		}
	}
	body = shorten(oneLine(what), 160)
	if ev.Kind != approval.KindLimit && ev.Reason != "" {
		body += "\n" + shorten(oneLine(ev.Reason), 120)
	}
	if pending > 1 {
		body += "\n" + strconv.Itoa(pending) + " cards are waiting."
	}
	return title, body
}

func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }), " ")
}

func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// escapeMarkup makes text safe for a freedesktop notification body, which
// servers may render as a small subset of HTML.
func escapeMarkup(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;").Replace(s)
}
