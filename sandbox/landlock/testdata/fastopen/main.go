// Command fastopen makes the TCP Fast Open sends that Python cannot:
// sendmmsg(2) with MSG_FASTOPEN, which connects without connect(2), to
// 127.0.0.2 on the port it is given. TestProxyPortWhatHolds runs it
// inside the sandbox; it prints one line per attempt.
package main

import (
	"fmt"
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mmsghdr is struct mmsghdr: a msghdr and the length sent.
type mmsghdr struct {
	hdr unix.Msghdr
	n   uint32
	_   [4]byte
}

func main() {
	port, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Println("usage: fastopen PORT")
		os.Exit(2)
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		fmt.Println("sendmmsg=refused socket:", err)
		return
	}
	defer unix.Close(fd)
	sa := unix.RawSockaddrInet4{Family: unix.AF_INET, Addr: [4]byte{127, 0, 0, 2}}
	sa.Port = uint16(port>>8) | uint16(port&0xff)<<8 // network byte order
	data := []byte("hi")
	iov := unix.Iovec{Base: &data[0]}
	iov.SetLen(len(data))
	var m mmsghdr
	m.hdr.Name = (*byte)(unsafe.Pointer(&sa))
	m.hdr.Namelen = unix.SizeofSockaddrInet4
	m.hdr.Iov = &iov
	m.hdr.SetIovlen(1)
	n, _, errno := unix.Syscall6(unix.SYS_SENDMMSG, uintptr(fd), uintptr(unsafe.Pointer(&m)), 1, unix.MSG_FASTOPEN, 0, 0)
	if errno != 0 {
		fmt.Println("sendmmsg=refused", errno)
		return
	}
	fmt.Println("sendmmsg=sent", n)
}
