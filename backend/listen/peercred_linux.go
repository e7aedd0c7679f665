package listen

import "golang.org/x/sys/unix"

const peerCredOption = "SO_PEERCRED"

func peerCred(fd int) (uint32, error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return 0, err
	}
	return cred.Uid, nil
}
