// Package window is the Gatehouse window: a process of its own
// (`gatehouse-desktop window`) that the desktop app starts when the person
// opens Gatehouse and stops some time after they close it, so WebKit costs
// nothing while the window is hidden. It loads the web UI from the daemon
// over DATA/control.sock (same user only) and takes commands from the app
// on stdin, answering with events on fd 3, one JSON object a line.
//
// The Wails parts build only with the `desktop` tag; the protocol, the
// page report and the proxy here build everywhere so the fast unit tests
// cover them and the app (the small gatehouse binary) can speak the
// protocol.
package window

import (
	"encoding/json"
	"fmt"
)

// Cmd is what the app asks of the window.
type Cmd string

const (
	CmdShow        Cmd = "show"         // map and raise the window
	CmdHide        Cmd = "hide"         // hide it (the process stays)
	CmdConfirmQuit Cmd = "confirm-quit" // ask the person whether to quit with Waiting calls waiting
	CmdExit        Cmd = "exit"         // close the window and end the process
)

// Command is one line from the app.
type Command struct {
	Cmd     Cmd `json:"cmd"`
	Waiting int `json:"waiting,omitempty"`
}

// ParseCommand reads one line; an unknown command is an error, never a
// guess.
func ParseCommand(line []byte) (Command, error) {
	var c Command
	if err := json.Unmarshal(line, &c); err != nil {
		return c, fmt.Errorf("window command %q: %w", line, err)
	}
	switch c.Cmd {
	case CmdShow, CmdHide, CmdExit:
	case CmdConfirmQuit:
		if c.Waiting < 1 {
			return c, fmt.Errorf("window command %q: confirm-quit needs waiting >= 1", line)
		}
	default:
		return c, fmt.Errorf("window command %q: unknown command", line)
	}
	return c, nil
}

// Ev is what the window tells the app.
type Ev string

const (
	// EvVisible: whether the person can see the window changed (shown,
	// hidden, minimised). Ready says the page's app shell has rendered;
	// Closed that it is out of sight because it was closed or hidden (Ctrl+W,
	// the close button, the app), not minimised.
	EvVisible Ev = "visible"
	// EvQuit: the person asked to quit (Ctrl+Q, the menu); the app decides.
	EvQuit Ev = "quit"
	// EvQuitAnswer answers CmdConfirmQuit.
	EvQuitAnswer Ev = "quit-answer"
)

// Event is one line to the app.
type Event struct {
	Ev      Ev   `json:"ev"`
	Visible bool `json:"visible,omitempty"`
	Ready   bool `json:"ready,omitempty"`
	Quit    bool `json:"quit,omitempty"`
	Closed  bool `json:"closed,omitempty"`
}

// ParseEvent reads one line from the window.
func ParseEvent(line []byte) (Event, error) {
	var e Event
	if err := json.Unmarshal(line, &e); err != nil {
		return e, fmt.Errorf("window event %q: %w", line, err)
	}
	switch e.Ev {
	case EvVisible, EvQuit, EvQuitAnswer:
		return e, nil
	}
	return e, fmt.Errorf("window event %q: unknown event", line)
}

// Line encodes a command or an event as one line.
func Line(v any) []byte {
	b, _ := json.Marshal(v) // flat structs of strings, ints and bools
	return append(b, '\n')
}
