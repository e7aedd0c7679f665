package cli

import (
	"errors"
	"syscall"
)

// serveError is the one sentence a failed start shows.
func serveError(err error, addr string) error {
	if errors.Is(err, syscall.EADDRINUSE) {
		return userErrorf(err, "%s is already in use (another Gatehouse or another program listens there); stop it, or pass --listen 127.0.0.1:0 to pick a free port", addr)
	}
	return userErrorf(err, "%v", err)
}
