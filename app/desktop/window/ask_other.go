//go:build desktop && !linux

package window

import (
	"context"

	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// askQuit asks with the system's own question dialog.
func askQuit(wctx context.Context, title, text, detail string) bool {
	if wctx == nil {
		return false
	}
	answer, err := runtime.MessageDialog(wctx, runtime.MessageDialogOptions{
		Type: runtime.QuestionDialog, Title: title, Message: text + "\n\n" + detail,
		Buttons: []string{"Quit and deny", "Keep running"}, DefaultButton: "Keep running", CancelButton: "Keep running",
	})
	return err == nil && (answer == "Quit and deny" || answer == "Yes")
}
