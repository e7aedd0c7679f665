//go:build linux

package desktop

import (
	"encoding/json"
	"os"

	"github.com/godbus/dbus/v5"
)

// ShowRunning asks the Gatehouse window running on dataDir to show itself
// (the tray's "Open Gatehouse" calls it). False means no window runs there
// (or it did not answer): then open the web UI instead.
func ShowRunning(dataDir string) bool { return raiseRunning(UniqueID(dataDir), nil) }

// raiseRunning asks a Gatehouse window already running on this data dir to
// show itself, using the D-Bus protocol of Wails' SingleInstanceLock (the
// running app owns the name and gets our arguments through
// OnSecondInstanceLaunch). It reports whether one answered; then this
// process must not start a second daemon.
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
