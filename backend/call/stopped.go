package call

import (
	"context"
	"errors"

	"github.com/gatehouse-dev/gatehouse/backend/session"
)

// noteStopped tells the agent whose command the kill switch ended, beside
// the output it produced until then, to wait rather than retry or try
// another way.
func noteStopped(ctx context.Context, out *Output) {
	if !errors.Is(context.Cause(ctx), session.ErrKilled) {
		return
	}
	if out.Warning != "" {
		out.Warning = session.KilledMessage + "; also, " + out.Warning
		return
	}
	out.Warning = session.KilledMessage
}
