package cli

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"

	"github.com/gatehouse-dev/gatehouse/app/cli/termsafe"
	"github.com/gatehouse-dev/gatehouse/app/client"
	"github.com/gatehouse-dev/gatehouse/backend/confined"
	"github.com/gatehouse-dev/gatehouse/backend/plural"
	"github.com/gatehouse-dev/gatehouse/backend/snapshot"
)

// maxRunChanges is how many paths a confined run's summary names.
const maxRunChanges = 20

// printRunChanges says what changed in the project while a confined run
// lasted (the run's checkpoint before against the one after, as the call
// "run-ID") and how to undo it. That is the agent's own writes, which no
// call recorded, and also its calls' changes and anyone's edits made
// meanwhile: the checkpoints cannot tell them apart, so the text says
// so. A run whose checkpoints are missing (checkpoints off, a run still
// going) says nothing.
func printRunChanges(ctx context.Context, w io.Writer, c *client.Client, sessionID string) {
	var list struct {
		Checkpoints []snapshot.Checkpoint `json:"checkpoints"`
	}
	if err := c.Get(ctx, "/api/v1/sessions/"+url.PathEscape(sessionID)+"/checkpoints", nil, &list); err != nil {
		return
	}
	seen := map[string]bool{}
	for _, cp := range list.Checkpoints {
		if !strings.HasPrefix(cp.CallID, confined.CallPrefix) || seen[cp.CallID] {
			continue
		}
		seen[cp.CallID] = true
		var d struct {
			Changes []snapshot.Change `json:"changes"`
		}
		if err := c.Get(ctx, "/api/v1/sessions/"+url.PathEscape(sessionID)+"/calls/"+url.PathEscape(cp.CallID)+"/diff", nil, &d); err != nil {
			continue // no checkpoint after it (yet)
		}
		fmt.Fprint(w, runChangesText(sessionID, cp.CallID, d.Changes))
	}
}

// runChangesText is the summary of what changed while one run lasted.
func runChangesText(sessionID, call string, changes []snapshot.Change) string {
	var b strings.Builder
	if len(changes) == 0 {
		fmt.Fprintf(&b, "Nothing changed in the project while this run lasted (%s).\n", termsafe.String(call))
		return b.String()
	}
	roots := map[string]bool{}
	for _, ch := range changes {
		roots[ch.Root] = true
	}
	where := make([]string, 0, len(roots))
	for r := range roots {
		where = append(where, r)
	}
	sort.Strings(where)
	fmt.Fprintf(&b, "What changed while this run lasted (%s): %s in %s; the agent's own writes, its calls' changes below and any edit made meanwhile outside Gatehouse alike\n",
		termsafe.String(call), plural.Count(len(changes), "path", "paths"), strings.Join(termsafe.Strings(where), ", "))
	for i, ch := range changes {
		if i == maxRunChanges {
			fmt.Fprintf(&b, "  … and %d more\n", len(changes)-maxRunChanges)
			break
		}
		p := ch.Path
		if ch.NewKind == snapshot.KindDir || ch.Kind == snapshot.Deleted && ch.OldKind == snapshot.KindDir {
			p += "/"
		}
		if len(roots) > 1 {
			p = ch.Root + "/" + p
		}
		fmt.Fprintf(&b, "  %-9s %s\n", ch.Kind, termsafe.String(p))
	}
	fmt.Fprintf(&b, "Undo all of it with: gatehouse rollback %s --call %s (add --dry-run to see what it would do)\n", termsafe.String(sessionID), termsafe.String(call))
	return b.String()
}
