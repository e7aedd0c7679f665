package mcpserver

import (
	"errors"
	"net/http"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/backend/httpgate"
	"github.com/gatehouse-dev/gatehouse/backend/session"
)

// RunHeader names the agent run a request belongs to ("claude:<id>"): the
// stdio bridge sends it, read from the environment the agent gave it, so
// the bridge's calls and the agent's hooks share one session.
const RunHeader = "X-Gatehouse-Run"

// runKey reads RunHeader; named is false when there is none. A malformed
// value is refused rather than ignored, so a run is never merged into
// another by accident.
func runKey(h http.Header) (k session.RunKey, named bool, err error) {
	if run := h.Get(httpgate.ConfinedRunHeader); run != "" {
		// A confined run's own listener: every client inside is the run.
		return session.ConfinedRun(run), true, nil
	}
	v := h.Get(RunHeader)
	if v == "" {
		return session.RunKey{}, false, nil
	}
	k, err = session.ParseRunKey(v)
	if err != nil {
		return session.RunKey{}, false, errors.New("the " + RunHeader + " header is malformed: " + err.Error())
	}
	return k, true, nil
}

// CwdHeader carries the agent's working directory (the stdio bridge's,
// which the agent starts in its project): the session's workspace is
// that project. Only an absolute path counts.
const CwdHeader = "X-Gatehouse-Cwd"

// cwdOf reads CwdHeader; "" when absent or not an absolute path.
func cwdOf(h http.Header) string {
	v := h.Get(CwdHeader)
	if !filepath.IsAbs(v) {
		return ""
	}
	return filepath.Clean(v)
}
