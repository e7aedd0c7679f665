//go:build darwin

package desktop

import (
	"context"
	"fmt"
	"os/exec"
	"time"
)

// osaNotifier posts through Notification Center with osascript. The text
// travels as arguments, never inside the script, so nothing an agent wrote
// can change what runs.
type osaNotifier struct{}

func newNotifier(func(string, Action)) Notifier { return osaNotifier{} }

// Notification Center's scripted notifications carry no buttons.
func (osaNotifier) Notify(n Notification) (uint32, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "osascript",
		"-e", "on run argv",
		"-e", "display notification (item 2 of argv) with title (item 1 of argv)",
		"-e", "end run",
		n.Title, n.Body).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("osascript: %v: %s", err, out)
	}
	return 0, nil
}

func (osaNotifier) Close() error { return nil }
