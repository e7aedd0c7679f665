package bwrap

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// guardProbeEnv makes the test binary, copied into a workspace and run
// there, try each way of creating its argument that a shell cannot
// (creation guard tests), and print one line per way: "way: ok" or
// "way: <errno name>".
const guardProbeEnv = "GATEHOUSE_GUARD_PROBE"

func init() {
	if name := os.Getenv(guardProbeEnv); name != "" {
		os.Exit(guardProbe(name))
	}
}

func guardProbe(name string) int {
	try := func(way string, f func() error) {
		if err := f(); err != nil {
			fmt.Printf("%s: %s\n", way, unix.ErrnoName(errnoIn(err)))
			return
		}
		fmt.Printf("%s: ok\n", way)
		_ = os.RemoveAll(name)
	}
	tmpfile := func() (int, error) {
		fd, err := unix.Open(".", unix.O_TMPFILE|unix.O_WRONLY, 0o600)
		if err == nil {
			_, err = unix.Write(fd, []byte("evil\n"))
		}
		return fd, err
	}
	try("tmpfile-link", func() error {
		fd, err := tmpfile()
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		return unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), unix.AT_FDCWD, name, unix.AT_SYMLINK_FOLLOW)
	})
	try("openat-dirfd", func() error {
		dfd, err := unix.Open(".", unix.O_DIRECTORY|unix.O_RDONLY, 0)
		if err != nil {
			return err
		}
		defer unix.Close(dfd)
		fd, err := unix.Openat(dfd, name, unix.O_CREAT|unix.O_WRONLY, 0o644)
		if err == nil {
			unix.Close(fd)
		}
		return err
	})
	try("bind", func() error {
		s, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		defer unix.Close(s)
		return unix.Bind(s, &unix.SockaddrUnix{Name: name})
	})
	try("mknod", func() error { return unix.Mknodat(unix.AT_FDCWD, name, unix.S_IFIFO|0o644, 0) })
	try("rename-noreplace", func() error {
		if err := os.WriteFile("probe-src", []byte("evil\n"), 0o644); err != nil {
			return err
		}
		defer os.Remove("probe-src")
		return unix.Renameat2(unix.AT_FDCWD, "probe-src", unix.AT_FDCWD, name, unix.RENAME_NOREPLACE)
	})
	try("openat2", func() error {
		how := unix.OpenHow{Flags: unix.O_CREAT | unix.O_WRONLY, Mode: 0o644}
		fd, err := unix.Openat2(unix.AT_FDCWD, name, &how)
		if err == nil {
			unix.Close(fd)
		}
		return err
	})
	try("io_uring", func() error {
		var params [120]byte
		fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 4, uintptr(unsafe.Pointer(&params[0])), 0)
		if e != 0 {
			return e
		}
		unix.Close(int(fd))
		return nil
	})
	// The same open through the x32 ABI, whose numbers a filter would
	// otherwise read as the 64-bit calls'.
	try("x32-open", func() error {
		p, err := unix.BytePtrFromString(name)
		if err != nil {
			return err
		}
		fd, _, e := unix.Syscall(0x40000000|unix.SYS_OPEN, uintptr(unsafe.Pointer(p)), unix.O_CREAT|unix.O_WRONLY, 0o644)
		if e != 0 {
			return e
		}
		unix.Close(int(fd))
		return nil
	})
	// Many creations at once, from threads Go preempts with signals: an
	// O_EXCL open the guard made must not be retried into EEXIST.
	try("concurrent-excl", func() error {
		dir := name + "-many"
		if err := os.Mkdir(dir, 0o755); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		var wg sync.WaitGroup
		errs := make(chan error, 400)
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 50 {
					fd, err := unix.Open(fmt.Sprintf("%s/%d-%d", dir, g, i), unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
					if err != nil {
						errs <- err
						return
					}
					unix.Close(fd)
				}
			}()
		}
		wg.Wait()
		close(errs)
		return <-errs
	})
	return 0
}

func errnoIn(err error) unix.Errno {
	if e, ok := err.(unix.Errno); ok {
		return e
	}
	if pe, ok := err.(*os.PathError); ok {
		return errnoIn(pe.Err)
	}
	if le, ok := err.(*os.LinkError); ok {
		return errnoIn(le.Err)
	}
	return unix.EIO
}
