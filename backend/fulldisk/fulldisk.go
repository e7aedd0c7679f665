// Package fulldisk gives tests a disk that really fills up: a small tmpfs,
// mounted for the length of the test. Mounting needs root, as make test
// runs the integration tests.
package fulldisk

import (
	"os"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs on dir, an existing directory, with opts (tmpfs's
// mount options: "size=16m", "size=4m,mode=0700"), and detaches it when
// the test ends.
func Mount(t testing.TB, dir, opts string) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Fatal("this test mounts a tmpfs and must run as root (make test runs it so)")
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, opts); err != nil {
		t.Fatalf("mount a tmpfs (%s) on %s: %v", opts, dir, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
}

// New is Mount on a fresh directory, which it returns.
func New(t testing.TB, opts string) string {
	t.Helper()
	dir := t.TempDir()
	Mount(t, dir, opts)
	return dir
}

// Fill writes zeros to a new file at path, mib MiB at most, and stops
// where the disk is full: a full disk is the point, so it reports nothing.
func Fill(path string, mib int) {
	f, err := os.Create(path)
	if err != nil {
		return
	}
	defer f.Close()
	block := make([]byte, 1<<20)
	for range mib {
		if _, err := f.Write(block); err != nil {
			return
		}
	}
}
