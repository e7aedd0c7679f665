package api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/snapshot"
)

func (s *Server) registerRollback(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/sessions/{id}/checkpoints", s.listCheckpoints)
	mux.HandleFunc("GET /api/v1/sessions/{id}/calls/{call}/diff", s.callDiff)
	mux.HandleFunc("POST /api/v1/sessions/{id}/rollback", s.rollback)
}

// snapshotsOff answers when checkpoints are disabled.
func (s *Server) snapshotsOff(w http.ResponseWriter, r *http.Request) bool {
	if s.Snapshots != nil {
		return false
	}
	s.fail(w, r, &httpError{http.StatusNotFound, "checkpoints are turned off in this daemon's configuration"})
	return true
}

func (s *Server) listCheckpoints(w http.ResponseWriter, r *http.Request) {
	if s.snapshotsOff(w, r) {
		return
	}
	id := r.PathValue("id")
	if _, err := s.Sessions.Lookup(r.Context(), id); err != nil {
		s.fail(w, r, err)
		return
	}
	list, err := s.Snapshots.List(id)
	if err != nil {
		s.fail(w, r, snapshotError(err))
		return
	}
	if list == nil {
		list = []snapshot.Checkpoint{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"checkpoints": list})
}

// callDiff is what one call changed: its pre checkpoint against its post.
func (s *Server) callDiff(w http.ResponseWriter, r *http.Request) {
	if s.snapshotsOff(w, r) {
		return
	}
	list, err := s.Snapshots.List(r.PathValue("id"))
	if err != nil {
		s.fail(w, r, snapshotError(err))
		return
	}
	call := r.PathValue("call")
	var pre, post string
	for _, c := range list {
		if c.CallID != call {
			continue
		}
		switch c.Phase {
		case snapshot.Pre:
			pre = c.ID
		case snapshot.Post:
			post = c.ID
		}
	}
	if pre == "" || post == "" {
		s.fail(w, r, &httpError{http.StatusNotFound, "that call has no before-and-after checkpoints in this session (it changed nothing, or is still running)"})
		return
	}
	changes, err := s.Snapshots.Changes(r.Context(), pre, post)
	if err != nil {
		s.fail(w, r, snapshotError(err))
		return
	}
	var diff strings.Builder
	for _, c := range changes {
		diff.WriteString(c.Diff)
	}
	writeJSON(w, http.StatusOK, map[string]any{"changes": changes, "diff": diff.String(), "before": pre, "after": post})
}

type rollbackRequest struct {
	Checkpoint string `json:"checkpoint"`
	Call       string `json:"call"`
	DryRun     bool   `json:"dry_run"`
	Force      bool   `json:"force"`
}

// rollback previews (dry_run) or applies a rollback to a checkpoint, or the
// undo of one call.
func (s *Server) rollback(w http.ResponseWriter, r *http.Request) {
	if s.snapshotsOff(w, r) {
		return
	}
	var req rollbackRequest
	if err := decodeBody(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	if (req.Checkpoint == "") == (req.Call == "") {
		s.fail(w, r, &httpError{http.StatusBadRequest, `give exactly one of "checkpoint" (roll back to it) or "call" (undo that call)`})
		return
	}
	sess := r.PathValue("id")
	if _, err := s.Sessions.Lookup(r.Context(), sess); err != nil {
		s.fail(w, r, err)
		return
	}
	plan, err := s.Snapshots.Plan(r.Context(), snapshot.RollbackRequest{Session: sess, To: req.Checkpoint, UndoCall: req.Call, Force: req.Force})
	if err != nil {
		s.fail(w, r, snapshotError(err))
		return
	}
	out := map[string]any{"plan": plan, "summary": summarize(plan), "applied": false}
	if req.DryRun {
		writeJSON(w, http.StatusOK, out)
		return
	}
	res, err := s.Snapshots.Apply(r.Context(), plan)
	if err != nil {
		s.Emit(r.Context(), "rollback.failed", "human", sess, map[string]any{"plan": plan.ID, "error": err.Error()})
		s.fail(w, r, snapshotError(err))
		return
	}
	s.Emit(r.Context(), "rollback.applied", "human", sess, map[string]any{
		"plan": plan.ID, "to": req.Checkpoint, "undo_call": req.Call, "force": req.Force, "before": res.Before,
		"restored": res.Restored, "deleted": res.Deleted, "recreated": res.Recreated, "kept": len(plan.ExternalEdits) + len(plan.Conflicts),
	})
	out["result"], out["applied"] = res, true
	writeJSON(w, http.StatusOK, out)
}

// summarize groups a plan by action, for people and the UI.
func summarize(p *snapshot.Plan) map[string]any {
	group := map[snapshot.Action][]string{}
	var diff strings.Builder
	for _, it := range p.Items {
		group[it.Action] = append(group[it.Action], it.Path)
		diff.WriteString(it.Diff)
	}
	held := func(hs []snapshot.Held) []string {
		out := []string{}
		for _, h := range hs {
			out = append(out, h.Path)
		}
		return out
	}
	nonNil := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	return map[string]any{
		"restore": nonNil(group[snapshot.Restore]), "delete": nonNil(group[snapshot.Delete]), "recreate": nonNil(group[snapshot.Recreate]),
		"conflicts": held(p.Conflicts), "external_edits": held(p.ExternalEdits), "diff": diff.String(),
	}
}

// snapshotError maps the store's typed errors to statuses; their text is
// already one plain sentence.
func snapshotError(err error) error {
	switch {
	case errors.Is(err, snapshot.ErrWrongSession), errors.Is(err, snapshot.ErrBadRequest):
		return &httpError{http.StatusBadRequest, err.Error()}
	case errors.Is(err, snapshot.ErrNotFound):
		return &httpError{http.StatusNotFound, err.Error()}
	case errors.Is(err, snapshot.ErrPlanStale):
		return &httpError{http.StatusConflict, err.Error()}
	case errors.Is(err, snapshot.ErrWorkspaceMissing), errors.Is(err, snapshot.ErrMissingObject), errors.Is(err, snapshot.ErrNoSpace):
		return &httpError{http.StatusConflict, err.Error()}
	}
	return err
}
