//go:build !linux

package snapshot

import "errors"

func reflink(dstFd, srcFd int) error { return errors.ErrUnsupported }
