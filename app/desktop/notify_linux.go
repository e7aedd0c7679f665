//go:build linux

package desktop

import (
	"fmt"
	"sync"

	"github.com/godbus/dbus/v5"
)

const (
	notifyName  = "org.freedesktop.Notifications"
	notifyPath  = dbus.ObjectPath("/org/freedesktop/Notifications")
	notifyIface = "org.freedesktop.Notifications"
)

// dbusNotifier sends freedesktop notifications over the session bus. A
// click on one (its "default" action) calls onClick, which shows the
// window. The bus is dialled on first use and again after it went away.
type dbusNotifier struct {
	onClick func()

	mu   sync.Mutex
	conn *dbus.Conn
	ours map[uint32]bool
}

func newNotifier(onClick func()) Notifier {
	return &dbusNotifier{onClick: onClick, ours: map[uint32]bool{}}
}

func (n *dbusNotifier) connect() (*dbus.Conn, error) {
	if n.conn != nil && n.conn.Connected() {
		return n.conn, nil
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return nil, fmt.Errorf("connect to the D-Bus session bus: %w", err)
	}
	if err := conn.AddMatchSignal(dbus.WithMatchObjectPath(notifyPath), dbus.WithMatchInterface(notifyIface), dbus.WithMatchMember("ActionInvoked")); err != nil {
		conn.Close()
		return nil, fmt.Errorf("watch notification clicks: %w", err)
	}
	ch := make(chan *dbus.Signal, 16)
	conn.Signal(ch)
	go n.clicks(ch)
	n.conn = conn
	return conn, nil
}

// clicks runs until the connection closes (godbus then closes ch).
func (n *dbusNotifier) clicks(ch chan *dbus.Signal) {
	for s := range ch {
		if s.Name != notifyIface+".ActionInvoked" || len(s.Body) < 2 {
			continue
		}
		id, _ := s.Body[0].(uint32)
		n.mu.Lock()
		mine := n.ours[id]
		n.mu.Unlock()
		if mine && n.onClick != nil {
			n.onClick()
		}
	}
}

func (n *dbusNotifier) Notify(title, body string, replaces uint32) (uint32, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	conn, err := n.connect()
	if err != nil {
		return 0, err
	}
	hints := map[string]dbus.Variant{
		"urgency":       dbus.MakeVariant(byte(1)),
		"desktop-entry": dbus.MakeVariant("gatehouse"),
		"category":      dbus.MakeVariant("presence"),
	}
	var id uint32
	call := conn.Object(notifyName, notifyPath).Call(notifyIface+".Notify", 0,
		AppName, replaces, "", title, escapeMarkup(body), []string{"default", "Open Gatehouse"}, hints, int32(-1))
	if err := call.Store(&id); err != nil {
		return 0, fmt.Errorf("org.freedesktop.Notifications.Notify: %w", err)
	}
	n.ours[id] = true
	return id, nil
}

func (n *dbusNotifier) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.conn == nil {
		return nil
	}
	err := n.conn.Close()
	n.conn = nil
	return err
}
