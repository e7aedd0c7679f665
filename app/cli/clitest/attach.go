package clitest

import "testing"

// Attach lets a test use these helpers on a daemon it started itself (in a
// directory of its choosing, say): d names the binary, the data dir, the
// workspace and the address. Attach neither starts nor stops it.
func Attach(t testing.TB, d *Daemon) *Daemon {
	d.t = t
	return d
}
