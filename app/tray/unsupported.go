package tray

import "errors"

// ErrUnsupported means this build cannot show a tray icon here (macOS
// needs the desktop build, which has cgo).
var ErrUnsupported = errors.New("this build has no tray icon on this system")
