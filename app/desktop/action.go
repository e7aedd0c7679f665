package desktop

// Action is a button on a desktop notification.
type Action int

const (
	ActionOpen      Action = iota + 1 // the notification itself: show the window
	ActionAllowOnce                   // allow the card's call, this once
	ActionDeny                        // deny it
)

var actionKeys = map[Action]string{ActionOpen: "default", ActionAllowOnce: "allow-once", ActionDeny: "deny"}

// Key is the action's identifier in the notification protocol ("default"
// is the freedesktop name for a click on the notification itself).
func (a Action) Key() string { return actionKeys[a] }

// ParseAction reads an action key; anything else is refused.
func ParseAction(key string) (Action, bool) {
	for a, k := range actionKeys {
		if k == key {
			return a, true
		}
	}
	return 0, false
}

// Notification is one desktop notification about a card.
type Notification struct {
	Title, Body string
	// Replaces is the id of the previous notification (0 for none), so a
	// burst of cards updates one bubble.
	Replaces uint32
	// Approval is the card the notification is about; its buttons decide
	// it.
	Approval string
	// Decidable cards get Allow once and Deny buttons (a question needs an
	// answer typed in the window).
	Decidable bool
}

// Notifier shows desktop notifications. Notify returns the id to replace
// next time.
type Notifier interface {
	Notify(Notification) (uint32, error)
	Close() error
}
