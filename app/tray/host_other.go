//go:build !linux

package tray

// HasHost is true off Linux: the menu bar always shows the icon.
func HasHost() (bool, error) { return true, nil }
