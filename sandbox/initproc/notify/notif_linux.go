package notify

import (
	"errors"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp user-notification plumbing both supervisors share: the
// connect filter's beside Landlock (connect_linux.go) and the creation
// guard's (guardserve_linux.go). Each is handed its filter's listener
// over a socket by the process that installed the filter.

// seccompNotif is struct seccomp_notif.
type seccompNotif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Nr    int32
	Arch  uint32
	IP    uint64
	Args  [6]uint64
}

// seccompNotifResp is struct seccomp_notif_resp.
type seccompNotifResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// ioctlNotifIDValid is SECCOMP_IOCTL_NOTIF_ID_VALID: the notification's
// task is still waiting in that call.
const ioctlNotifIDValid = 0x40082102

// seccompNotifAddFD is struct seccomp_notif_addfd.
type seccompNotifAddFD struct {
	ID         uint64
	Flags      uint32
	SrcFD      uint32
	NewFD      uint32
	NewFDFlags uint32
}

const ioctlNotifAddFD = 0x40182103 // SECCOMP_IOCTL_NOTIF_ADDFD

// errCallerGone: the task went away before its call was read.
var errCallerGone = errors.New("the caller went away before its call was read")

// receiveNotif reads the listener's next notification, waiting for one.
func receiveNotif(listener int) (seccompNotif, error) {
	var n seccompNotif
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(listener), unix.SECCOMP_IOCTL_NOTIF_RECV, uintptr(unsafe.Pointer(&n))); e != 0 {
		if e == unix.EINTR || e == unix.ENOENT {
			return n, errCallerGone
		}
		return n, e
	}
	return n, nil
}

// validate reports whether notification id still waits: only then does
// what was read of its caller (its memory, its /proc entries) belong to
// it rather than to a task that took its id since.
func validate(listener int, id uint64) error {
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(listener), ioctlNotifIDValid, uintptr(unsafe.Pointer(&id))); e != 0 {
		return unix.ESRCH
	}
	return nil
}

// answerNotif answers call id with err, or success.
func answerNotif(listener int, id uint64, err error) {
	resp := seccompNotifResp{ID: id}
	if err != nil {
		resp.Error = -int32(errnoOf(err))
	}
	_, _, _ = unix.Syscall(unix.SYS_IOCTL, uintptr(listener), unix.SECCOMP_IOCTL_NOTIF_SEND, uintptr(unsafe.Pointer(&resp)))
}

// answerNotifFD puts fd into the caller, as the result of its open,
// closes it here, and only then answers: the open file is the caller's
// alone once its call returns, so a file it wrote and closed runs at
// once. Adding and answering in one step (SECCOMP_ADDFD_FLAG_SEND) let
// the caller run before this close, and an exec of the file it had just
// written failed with ETXTBSY while this thread waited for a CPU. The
// caller's descriptor is close-on-exec as its open's flags asked.
func answerNotifFD(listener int, id uint64, fd, flags int) {
	add := seccompNotifAddFD{ID: id, SrcFD: uint32(fd)}
	if flags&unix.O_CLOEXEC != 0 {
		add.NewFDFlags = unix.O_CLOEXEC
	}
	r, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(listener), ioctlNotifAddFD, uintptr(unsafe.Pointer(&add)))
	unix.Close(fd)
	switch {
	case e == unix.ENOENT:
		// The caller went away.
	case e != 0:
		answerNotif(listener, id, e) // EMFILE: the caller is out of descriptors
	default:
		// A caller whose call a signal cuts short now (before Linux
		// 5.19, see InstallGuardFilter) keeps the descriptor unused.
		resp := seccompNotifResp{ID: id, Val: int64(r)}
		_, _, _ = unix.Syscall(unix.SYS_IOCTL, uintptr(listener), unix.SECCOMP_IOCTL_NOTIF_SEND, uintptr(unsafe.Pointer(&resp)))
	}
}

// errnoOf is err's errno, EACCES when it has none.
func errnoOf(err error) unix.Errno {
	var e unix.Errno
	if errors.As(err, &e) && e != 0 {
		return e
	}
	return unix.EACCES
}
