//go:build desktop

package window

import (
	"log/slog"
	"strings"
)

// wailsLogger routes Wails' own messages into the process logger.
type wailsLogger struct{ l *slog.Logger }

func (w wailsLogger) msg(s string) string { return strings.TrimSpace(s) }

func (w wailsLogger) Print(m string)   { w.l.Info(w.msg(m), "component", "wails") }
func (w wailsLogger) Trace(m string)   { w.l.Debug(w.msg(m), "component", "wails") }
func (w wailsLogger) Debug(m string)   { w.l.Debug(w.msg(m), "component", "wails") }
func (w wailsLogger) Info(m string)    { w.l.Info(w.msg(m), "component", "wails") }
func (w wailsLogger) Warning(m string) { w.l.Warn(w.msg(m), "component", "wails") }
func (w wailsLogger) Error(m string)   { w.l.Error(w.msg(m), "component", "wails") }
func (w wailsLogger) Fatal(m string)   { w.l.Error(w.msg(m), "component", "wails", "fatal", true) }
