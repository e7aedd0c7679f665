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

// printRunChanges says what a confined run's agent changed itself (its
// own writes, which no call recorded: the run's checkpoint before against
// the one after, as the call "run-ID") and how to undo it. A run whose
// checkpoints are missing (checkpoints off, a run still going) says
// nothing.
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

// runChangesText is the summary of one run's own changes.
func runChangesText(sessionID, call string, changes []snapshot.Change) string {
	var b strings.Builder
	if len(changes) == 0 {
		fmt.Fprintf(&b, "The agent changed no file itself in this run (%s).\n", termsafe.String(call))
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
	fmt.Fprintf(&b, "The agent's own changes in this run (%s), outside any call: %s in %s\n",
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
	fmt.Fprintf(&b, "Undo them with: gatehouse rollback %s --call %s\n", termsafe.String(sessionID), termsafe.String(call))
	return b.String()
}
