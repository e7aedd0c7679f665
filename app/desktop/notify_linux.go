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

// notifyCategory is the notification's type hint. The specification's
// standard categories (device, email, im, network, presence, transfer,
// call) describe none of this; its rule for others is "x-vendor.class.name".
const notifyCategory = "x-gatehouse.approval.requested"

// dbusNotifier sends freedesktop notifications over the session bus, with
// Allow once and Deny buttons on a card that can be decided from there. A
// click (ActionInvoked) is taken only from the notification server that
// showed the notification: anyone on the bus can emit the signal, and
// Allow decides a call.
type dbusNotifier struct {
	onAction func(approval string, a Action)

	mu   sync.Mutex
	conn *dbus.Conn
	ours map[uint32]shown
}

// shown is one notification on screen: its card and the server (unique bus
// name) that showed it.
type shown struct {
	approval string
	server   string
}

func newNotifier(onAction func(approval string, a Action)) Notifier {
	return &dbusNotifier{onAction: onAction, ours: map[uint32]shown{}}
}

func (n *dbusNotifier) connect() (*dbus.Conn, error) {
	if n.conn != nil && n.conn.Connected() {
		return n.conn, nil
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return nil, fmt.Errorf("connect to the D-Bus session bus: %w", err)
	}
	for _, member := range []string{"ActionInvoked", "NotificationClosed"} {
		if err := conn.AddMatchSignal(dbus.WithMatchObjectPath(notifyPath), dbus.WithMatchInterface(notifyIface), dbus.WithMatchMember(member)); err != nil {
			conn.Close()
			return nil, fmt.Errorf("watch notification clicks: %w", err)
		}
	}
	ch := make(chan *dbus.Signal, 16)
	conn.Signal(ch)
	go n.signals(ch)
	n.conn = conn
	return conn, nil
}

// signals runs until the connection closes (godbus then closes ch).
func (n *dbusNotifier) signals(ch chan *dbus.Signal) {
	for s := range ch {
		if len(s.Body) < 1 {
			continue
		}
		id, _ := s.Body[0].(uint32)
		n.mu.Lock()
		note, mine := n.ours[id]
		// A signal from anyone but the server that showed it is forged.
		mine = mine && s.Sender == note.server
		if mine {
			delete(n.ours, id)
		}
		n.mu.Unlock()
		if !mine || s.Name != notifyIface+".ActionInvoked" || len(s.Body) < 2 {
			continue
		}
		key, _ := s.Body[1].(string)
		if a, ok := ParseAction(key); ok && n.onAction != nil {
			n.onAction(note.approval, a)
		}
	}
}

func (n *dbusNotifier) Notify(note Notification) (uint32, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	conn, err := n.connect()
	if err != nil {
		return 0, err
	}
	var server string
	if err := conn.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, notifyName).Store(&server); err != nil {
		return 0, fmt.Errorf("no notification server on the session bus: %w", err)
	}
	hints := map[string]dbus.Variant{
		"urgency":       dbus.MakeVariant(byte(1)),
		"desktop-entry": dbus.MakeVariant("gatehouse"),
		"category":      dbus.MakeVariant(notifyCategory),
	}
	actions := []string{ActionOpen.Key(), "Open Gatehouse"}
	if note.Decidable {
		actions = append(actions, ActionAllowOnce.Key(), "Allow once", ActionDeny.Key(), "Deny")
	}
	var id uint32
	call := conn.Object(notifyName, notifyPath).Call(notifyIface+".Notify", 0,
		AppName, note.Replaces, "", note.Title, escapeMarkup(note.Body), actions, hints, int32(-1))
	if err := call.Store(&id); err != nil {
		return 0, fmt.Errorf("org.freedesktop.Notifications.Notify: %w", err)
	}
	n.ours[id] = shown{approval: note.Approval, server: server}
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
