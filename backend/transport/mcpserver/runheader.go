package mcpserver

import (
	"errors"
	"net/http"

	"github.com/gatehouse-dev/gatehouse/backend/session/agentrun"
)

// RunHeader names the agent run a request belongs to ("claude:<id>"): the
// stdio bridge sends it, read from the environment the agent gave it, so
// the bridge's calls and the agent's hooks share one session.
const RunHeader = "X-Gatehouse-Run"

// runKey reads RunHeader; named is false when there is none. A malformed
// value is refused rather than ignored, so a run is never merged into
// another by accident.
func runKey(h http.Header) (k agentrun.Key, named bool, err error) {
	v := h.Get(RunHeader)
	if v == "" {
		return agentrun.Key{}, false, nil
	}
	k, err = agentrun.ParseKey(v)
	if err != nil {
		return agentrun.Key{}, false, errors.New("the " + RunHeader + " header is malformed: " + err.Error())
	}
	return k, true, nil
}
