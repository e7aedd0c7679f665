package initproc

import "golang.org/x/sys/unix"

// ParseRights reads the descriptors of SCM_RIGHTS messages in oob: the
// ones already read are returned with an error, for the caller to close.
func ParseRights(oob []byte) ([]int, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var fds []int
	for _, m := range msgs {
		f, err := unix.ParseUnixRights(&m)
		if err != nil {
			return fds, err
		}
		fds = append(fds, f...)
	}
	return fds, nil
}
