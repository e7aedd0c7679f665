//go:build !linux

package pack

import "errors"

func reflink(dstFd, srcFd int) error { return errors.ErrUnsupported }
