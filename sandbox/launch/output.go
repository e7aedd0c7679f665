package launch

import (
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// Output copies a run's stdout and stderr pipes into capped captures.
type Output struct {
	stdout, stderr   *sandbox.Capture
	stdoutR, stderrR *os.File
	copies           sync.WaitGroup
}

// CopyOutput starts copying the read ends stdoutR and stderrR, each kept
// up to capBytes; live, if set, receive the kept bytes as they come.
func CopyOutput(stdoutR, stderrR *os.File, capBytes int64, liveOut, liveErr io.Writer) *Output {
	o := &Output{
		stdout: sandbox.NewCapture(capBytes, liveOut), stderr: sandbox.NewCapture(capBytes, liveErr),
		stdoutR: stdoutR, stderrR: stderrR,
	}
	o.copies.Add(2)
	go func() { defer o.copies.Done(); copyOutput(o.stdout, stdoutR) }()
	go func() { defer o.copies.Done(); copyOutput(o.stderr, stderrR) }()
	return o
}

// Finish waits for the copies and puts the output into res. With
// nothingWrites (every process of the run is gone), everything the run
// wrote is in the pipes; their EOF could wait for the sandbox's own
// processes (bwrap's init, namespaces being torn down) to let go of them,
// so what is buffered is taken instead. Otherwise it waits for EOF, but
// not forever: a process that escaped the kill could hold the pipes open.
func (o *Output) Finish(res *sandbox.Result, nothingWrites bool) {
	if nothingWrites {
		_ = o.stdoutR.SetReadDeadline(time.Now())
		_ = o.stderrR.SetReadDeadline(time.Now())
	}
	copied := make(chan struct{})
	go func() { o.copies.Wait(); close(copied) }()
	select {
	case <-copied:
	case <-time.After(2 * time.Second):
		o.stdoutR.Close()
		o.stderrR.Close()
		<-copied
	}
	res.Stdout, res.StdoutTruncated, res.StdoutBytes = o.stdout.Bytes(), o.stdout.Truncated(), o.stdout.Total()
	res.Stderr, res.StderrTruncated, res.StderrBytes = o.stderr.Bytes(), o.stderr.Truncated(), o.stderr.Total()
}

// copyOutput copies a run's output until EOF, or until the deadline set
// when the run is over, then takes what is still buffered in the pipe
// without waiting for more.
func copyOutput(dst *sandbox.Capture, src *os.File) {
	if _, err := io.Copy(dst, src); !errors.Is(err, os.ErrDeadlineExceeded) {
		return
	}
	// A raw read checks the deadline first and would not run at all.
	_ = src.SetReadDeadline(time.Time{})
	rc, err := src.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Read(func(fd uintptr) bool {
		dst.ReadAvailable(int(fd))
		return true // empty (EAGAIN), EOF or broken: done either way
	})
}
