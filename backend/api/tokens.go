package api

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/httpgate"
	"github.com/gatehouse-dev/gatehouse/backend/token"
)

// TokenInfo describes an agent token (never its value).
type TokenInfo struct {
	ID        string     `json:"id"`
	Kind      string     `json:"kind"`
	Name      string     `json:"name"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
}

// Tokens manages per-client agent tokens.
type Tokens interface {
	List(ctx context.Context) ([]TokenInfo, error)
	Create(ctx context.Context, name string) (TokenInfo, string, error)
	Revoke(ctx context.Context, id string) error
	// CreateLogin mints a login link's one-time code.
	CreateLogin(ctx context.Context) (string, time.Time, error)
	// RedeemLogin uses up the link the gate admitted (by its id) and
	// returns the browser's control token; ErrLoginUsed if it was used.
	RedeemLogin(ctx context.Context, id string) (string, time.Time, error)
}

// ErrLoginUsed is a login link that was used already (or just expired).
var ErrLoginUsed = errors.New("this login link was already used or has expired; run `gatehouse open` for a new one")

// ErrTokenNotFound is an unknown or non-revocable token id.
var ErrTokenNotFound = errors.New("no agent token with that id (the control token and the default agent token are revoked by deleting their files)")

func (s *Server) registerTokens(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/tokens", s.listTokens)
	mux.HandleFunc("POST /api/v1/tokens", s.createToken)
	mux.HandleFunc("DELETE /api/v1/tokens/{id}", s.revokeToken)
	mux.HandleFunc("GET /api/v1/connect", s.connect)
	mux.HandleFunc("POST /api/v1/login-links", s.loginLink)
	mux.HandleFunc("POST "+httpgate.LoginPath, s.redeemLogin)
}

func (s *Server) listTokens(w http.ResponseWriter, r *http.Request) {
	list, err := s.Tokens.List(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"tokens": list})
}

func (s *Server) createToken(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name string `json:"name"`
	}
	if err := decodeBody(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	if !token.ValidName(req.Name) {
		s.fail(w, r, &httpError{http.StatusBadRequest, "name the client with lowercase letters, digits, dots or dashes, e.g. cursor"})
		return
	}
	info, tok, err := s.Tokens.Create(r.Context(), req.Name)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.Emit(r.Context(), "token.created", "human", "", map[string]any{"id": info.ID, "name": info.Name})
	writeJSON(w, http.StatusCreated, map[string]any{"id": info.ID, "name": info.Name, "token": tok})
}

func (s *Server) revokeToken(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := s.Tokens.Revoke(r.Context(), id); err != nil {
		if errors.Is(err, ErrTokenNotFound) {
			s.fail(w, r, &httpError{http.StatusNotFound, err.Error()})
			return
		}
		s.fail(w, r, err)
		return
	}
	s.Emit(r.Context(), "token.revoked", "human", "", map[string]any{"id": id})
	writeJSON(w, http.StatusOK, map[string]any{"revoked": id})
}

func (s *Server) connect(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Connect())
}

// loginLink answers `gatehouse open`: a URL whose fragment carries a fresh,
// expiring control token (fragments never reach servers or logs).
func (s *Server) loginLink(w http.ResponseWriter, r *http.Request) {
	tok, exp, err := s.Tokens.CreateLogin(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.Emit(r.Context(), "token.login_link", "human", "", map[string]any{"expires_at": exp.UTC()})
	base, _ := s.Connect()["ui_url"].(string)
	writeJSON(w, http.StatusOK, map[string]any{"url": base + "#login=" + tok, "expires_at": exp.UTC()})
}

// redeemLogin is the one route a login link opens: the web UI trades the
// link's code for a control token of its own, and the link is used up.
func (s *Server) redeemLogin(w http.ResponseWriter, r *http.Request) {
	p, _ := httpgate.FromContext(r.Context())
	if p.Kind != token.Login {
		// The control socket and the desktop window are signed in already.
		s.fail(w, r, &httpError{http.StatusForbidden, "this route takes a login link from `gatehouse open`"})
		return
	}
	tok, exp, err := s.Tokens.RedeemLogin(r.Context(), p.TokenID)
	if errors.Is(err, ErrLoginUsed) {
		s.fail(w, r, &httpError{http.StatusUnauthorized, err.Error()})
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.Emit(r.Context(), "token.login_used", "human", "", map[string]any{"expires_at": exp.UTC()})
	writeJSON(w, http.StatusOK, map[string]any{"token": tok, "expires_at": exp.UTC()})
}
