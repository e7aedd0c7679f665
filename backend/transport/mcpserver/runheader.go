package mcpserver

import (
	"errors"
	"net/http"

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
