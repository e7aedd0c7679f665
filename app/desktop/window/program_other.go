//go:build desktop && !linux

package window

func setProgram() {}
