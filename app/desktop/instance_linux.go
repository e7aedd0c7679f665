//go:build linux

package desktop

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/godbus/dbus/v5"
)

// The single-instance protocol is Wails' (v2, Linux): the running app owns
// a bus name derived from its UniqueID and takes a second launch's
// arguments through SendMessage. Earlier builds hosted the window in the
// app's own process and used Wails' lock; the app keeps the protocol, so a
// tray or launcher of either build finds it.

// ShowRunning asks the Gatehouse app running on dataDir to show its window
// (the tray's "Open Gatehouse" calls it). False means no app runs there (or
// it did not answer): then open the web UI instead.
func ShowRunning(dataDir string) bool { return raiseRunning(UniqueID(dataDir), nil) }

// RequestQuit asks the Gatehouse app running on dataDir to quit (the tray's
// "Quit Gatehouse"); with calls waiting it asks the person first.
func RequestQuit(dataDir string) error {
	if !raiseRunning(UniqueID(dataDir), []string{quitArg}) {
		return errors.New("the Gatehouse app does not answer on the session bus")
	}
	return nil
}

// Prewarm asks the Gatehouse app running on dataDir to prepare its window
// hidden, so that showing it next is quick (the tray does when its menu
// opens: "Open Gatehouse" is likely next).
func Prewarm(dataDir string) { raiseRunning(UniqueID(dataDir), []string{prewarmArg}) }

// raiseRunning hands args to a Gatehouse app already running on this data
// dir. It reports whether one answered; then this process must not start a
// second daemon.
func raiseRunning(uniqueID string, args []string) bool {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return false
	}
	defer conn.Close()
	name, path := singleInstanceBus(uniqueID)
	var owned bool
	if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&owned); err != nil || !owned {
		return false
	}
	wd, _ := os.Getwd()
	msg, err := json.Marshal(map[string]any{"Args": args, "WorkingDirectory": wd})
	if err != nil {
		return false
	}
	return conn.Object(name, dbus.ObjectPath(path)).Call(name+".SendMessage", 0, string(msg)).Err == nil
}

// instance answers SendMessage on the app's bus name.
type instance struct {
	onMessage func(args []string)
}

func (i instance) SendMessage(msg string) *dbus.Error {
	var m struct{ Args []string }
	if err := json.Unmarshal([]byte(msg), &m); err != nil {
		return dbus.MakeFailedError(fmt.Errorf("bad message: %w", err))
	}
	// Off the bus's goroutine: a quit may wait for the person.
	go i.onMessage(m.Args)
	return nil
}

// claimInstance takes this app's bus name so later launches (and the tray)
// reach it. release gives it back.
func claimInstance(uniqueID string, onMessage func(args []string)) (release func(), err error) {
	noop := func() {}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return noop, fmt.Errorf("connect to the session bus: %w", err)
	}
	name, path := singleInstanceBus(uniqueID)
	if err := conn.Export(instance{onMessage: onMessage}, dbus.ObjectPath(path), name); err != nil {
		conn.Close()
		return noop, fmt.Errorf("export %s: %w", path, err)
	}
	reply, err := conn.RequestName(name, dbus.NameFlagDoNotQueue)
	if err != nil {
		conn.Close()
		return noop, fmt.Errorf("request %s: %w", name, err)
	}
	if reply != dbus.RequestNameReplyPrimaryOwner {
		conn.Close()
		return noop, fmt.Errorf("%s is owned by another process", name)
	}
	return func() { conn.Close() }, nil
}
