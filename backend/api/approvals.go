package api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
)

func (s *Server) registerApprovals(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/approvals", s.listApprovals)
	mux.HandleFunc("POST /api/v1/approvals/{id}", s.decideApproval)
	mux.HandleFunc("POST /api/v1/sessions/{id}/deny-pending", s.denySessionPending)
}

// denySessionPending denies every card one session has waiting: the answer
// to an agent flooding the person with cards.
func (s *Server) denySessionPending(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Message string `json:"message"`
	}
	if err := decodeBody(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	msg := strings.TrimSpace(req.Message)
	if msg == "" {
		msg = "the person denied everything this session had waiting"
	}
	n := s.Approvals.DenySession(r.Context(), r.PathValue("id"), msg)
	writeJSON(w, http.StatusOK, map[string]any{"denied": n})
}

func (s *Server) listApprovals(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"approvals": s.Approvals.Pending(), "timeout_s": int(s.Approvals.Timeout().Seconds())})
}

type decisionRequest struct {
	Decision string `json:"decision"`
	Scope    string `json:"scope"`
	Message  string `json:"message"`
	// Rule is the "always" rule as edited on the card.
	Rule string `json:"rule"`
	// Staged names conflicting paths of an effect card to take from the
	// staged run rather than keep.
	Staged []string `json:"staged"`
}

func (s *Server) decideApproval(w http.ResponseWriter, r *http.Request) {
	var req decisionRequest
	if err := decodeBody(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	d := approval.Decision{Scope: approval.Scope(req.Scope), Message: strings.TrimSpace(req.Message), Rule: strings.TrimSpace(req.Rule), Staged: req.Staged}
	if d.Rule != "" {
		// Checked now, so a bad edit is refused while the card still waits.
		if req.Scope != string(approval.ScopeAlways) {
			s.fail(w, r, &httpError{http.StatusBadRequest, `an edited rule only goes with scope "always"`})
			return
		}
		if _, err := policy.ParseRule(d.Rule); err != nil {
			s.fail(w, r, &httpError{http.StatusBadRequest, "the edited rule is not valid: " + err.Error()})
			return
		}
	}
	switch req.Decision {
	case "allow":
		d.Allow = true
	case "deny":
	default:
		s.fail(w, r, &httpError{http.StatusBadRequest, `decision must be "allow" or "deny"`})
		return
	}
	if len(d.Message) > 4096 {
		s.fail(w, r, &httpError{http.StatusBadRequest, "message is longer than 4096 characters"})
		return
	}
	ar, err := s.Approvals.Decide(r.Context(), r.PathValue("id"), d)
	switch {
	case errors.Is(err, approval.ErrWithdrawn):
		// Too late: nothing runs on this decision.
		s.fail(w, r, &httpError{http.StatusGone, err.Error()})
		return
	case errors.Is(err, approval.ErrNotFound):
		s.fail(w, r, &httpError{http.StatusNotFound, err.Error()})
		return
	case errors.Is(err, approval.ErrBadScope):
		s.fail(w, r, &httpError{http.StatusBadRequest, err.Error()})
		return
	case err != nil:
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"approval": ar, "decision": req.Decision, "scope": d.Scope})
}
