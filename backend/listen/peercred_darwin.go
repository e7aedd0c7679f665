package listen

import "golang.org/x/sys/unix"

const peerCredOption = "LOCAL_PEERCRED"

func peerCred(fd int) (uint32, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return 0, err
	}
	return cred.Uid, nil
}
