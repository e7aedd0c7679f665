package launch

import (
	"fmt"
	"os"
	"syscall"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
)

// SetupError is the error a helper reported when it could not confine
// its target (which then never ran), or nil.
func SetupError(status *initproc.Status) error {
	if status != nil && status.Error != "" && status.Exit == initproc.ExitSetupFailed {
		return fmt.Errorf("sandbox setup failed: %s", status.Error)
	}
	return nil
}

// FillExit sets res's exit code or signal from the helper's process state
// and, when a supervisor reported one, its Status (which wins).
func FillExit(res *sandbox.Result, ps *os.ProcessState, st *initproc.Status) {
	if ps == nil && st == nil {
		res.ExitCode = -1
		return
	}
	var ws syscall.WaitStatus
	if ps != nil {
		ws, _ = ps.Sys().(syscall.WaitStatus)
	}
	switch {
	case st != nil && st.Signal != 0:
		res.ExitCode, res.Signal = -1, signalName(syscall.Signal(st.Signal))
	case st != nil:
		res.ExitCode = st.Exit
	case ws.Signaled():
		res.ExitCode, res.Signal = -1, signalName(ws.Signal())
	default:
		res.ExitCode = ws.ExitStatus()
	}
	if st != nil {
		res.Left = st.Left
	}
	switch res.Signal {
	case signalName(syscall.SIGXCPU):
		res.Killed, res.KillReason = true, sandbox.KillCPU
		res.Violations = append(res.Violations, sandbox.Violation{Kind: "limit", Detail: "CPU time limit reached"})
	case signalName(syscall.SIGXFSZ):
		res.Violations = append(res.Violations, sandbox.Violation{Kind: "limit", Detail: "file size limit reached"})
	}
}

func signalName(s syscall.Signal) string {
	if n := s.String(); n != "" {
		return n
	}
	return fmt.Sprintf("signal %d", int(s))
}
