// Package tray is the Gatehouse tray icon: a small process of its own that
// shows what the agents are doing and carries the kill switch. It talks to
// the daemon over control.sock only, so it keeps working when the desktop
// window is frozen or closed.
//
// The GUI part (systray.go) is a StatusNotifierItem spoken over D-Bus in
// pure Go on Linux, so the tray is part of the small gatehouse binary and
// loads neither GTK nor WebKit; on macOS it needs cgo and the desktop
// build. This file and the controller turn the daemon's status into the
// icon, the title and the menu labels, and send the switches.
package tray

import (
	"fmt"
	"strings"
)

// Status is the part of GET /api/v1/status the tray reads.
type Status struct {
	State struct {
		Paused bool `json:"paused"`
		Killed bool `json:"killed"`
		Active int  `json:"active_sessions"`
	} `json:"state"`
	PendingApprovals int `json:"pending_approvals"`
}

// State is what the tray shows.
type State struct {
	// Offline means the daemon did not answer; OfflineWhy says how (one of
	// the Why constants; empty means WhyNotRunning).
	Offline    bool
	OfflineWhy string

	Paused  bool
	Killed  bool
	Active  int // live agent sessions
	Pending int // approvals waiting for the person

	// Notice is a short message about the last action that failed (for
	// example a kill switch the daemon did not acknowledge).
	Notice string
}

// FromStatus builds the state from a status reply.
func FromStatus(s Status) State {
	return State{Paused: s.State.Paused, Killed: s.State.Killed, Active: s.State.Active, Pending: s.PendingApprovals}
}

// Icon names one of the tray icons.
type Icon int

// The icons, one per state the person must tell apart at a glance.
const (
	IconIdle    Icon = iota // green disk: connected, nothing running
	IconActive              // blue disk with a dot: agents are working
	IconWaiting             // amber disk with "!": an approval waits for you
	IconPaused              // grey disk with two bars: new calls wait
	IconKilled              // red disk with a square: kill switch on
	IconOffline             // grey ring: the daemon does not answer
	iconCount
)

var iconNames = [...]string{"idle", "active", "waiting", "paused", "killed", "offline"}

func (i Icon) String() string {
	if i < 0 || i >= iconCount {
		return fmt.Sprintf("icon(%d)", int(i))
	}
	return iconNames[i]
}

// Menu labels. Tests find the menu items by these exact strings.
const (
	LabelOpen   = "Open Gatehouse"
	LabelPause  = "Pause all agents"
	LabelResume = "Resume agents"
	LabelKill   = "Stop all agents now"
	LabelQuit   = "Quit"
	// LabelQuitApp replaces LabelQuit when the desktop app started the tray.
	LabelQuitApp = "Quit Gatehouse"
)

// Why the daemon is offline.
const (
	WhyConnecting   = "connecting to the daemon"
	WhyNotRunning   = "daemon not running; retrying"
	WhyNotAnswering = "daemon not answering; retrying"
)

// Control API paths the tray uses.
const (
	PathStatus = "/api/v1/status"
	PathKill   = "/api/v1/kill"
	PathPause  = "/api/v1/pause"
	PathResume = "/api/v1/resume"
)

// View is everything the GUI shows for one state.
type View struct {
	Icon Icon
	// Title is "Gatehouse: " + Summary. On Linux it is the indicator's title
	// (and label); on macOS and Windows also the tooltip.
	Title string
	// Summary is the status line at the top of the menu.
	Summary string
	// PauseLabel is "Pause all agents", or "Resume agents" when paused or
	// killed (resume lifts both).
	PauseLabel   string
	PauseEnabled bool
}

// Render turns a state into what the tray shows.
func Render(s State) View {
	v := View{PauseLabel: LabelPause, PauseEnabled: !s.Offline}
	if s.Paused || s.Killed {
		v.PauseLabel = LabelResume
	}
	switch {
	case s.Offline:
		v.Icon = IconOffline
		v.Summary = s.OfflineWhy
		if v.Summary == "" {
			v.Summary = WhyNotRunning
		}
	case s.Killed:
		v.Icon = IconKilled
		v.Summary = "all agents stopped; new calls are refused until you resume"
	case s.Paused:
		v.Icon = IconPaused
		v.Summary = "paused, " + counts(s)
	case s.Pending > 0:
		v.Icon = IconWaiting
		v.Summary = counts(s)
	case s.Active > 0:
		v.Icon = IconActive
		v.Summary = counts(s)
	default:
		v.Icon = IconIdle
		v.Summary = counts(s)
	}
	if s.Notice != "" {
		v.Summary += " (" + strings.TrimSuffix(s.Notice, ".") + ")"
	}
	v.Title = "Gatehouse: " + v.Summary
	return v
}

// counts is "2 agents active, 1 waiting for you".
func counts(s State) string {
	var b strings.Builder
	switch s.Active {
	case 0:
		b.WriteString("no agents active")
	case 1:
		b.WriteString("1 agent active")
	default:
		fmt.Fprintf(&b, "%d agents active", s.Active)
	}
	if s.Pending > 0 {
		fmt.Fprintf(&b, ", %d waiting for you", s.Pending)
	}
	return b.String()
}

// PausePath is the switch the pause item sends in state s.
func PausePath(s State) string {
	if s.Paused || s.Killed {
		return PathResume
	}
	return PathPause
}
