package api

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// maxPolicyBytes bounds a policy file written through the API.
const maxPolicyBytes = 1 << 20

func (s *Server) registerPolicy(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/policy", s.getPolicy)
	mux.HandleFunc("PUT /api/v1/policy", s.putPolicy)
	mux.HandleFunc("POST /api/v1/policy/test", s.testPolicy)
}

func (s *Server) getPolicy(w http.ResponseWriter, r *http.Request) {
	text, err := os.ReadFile(s.Policy.UserPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.fail(w, r, err)
		return
	}
	p := s.Policy.Get()
	writeJSON(w, http.StatusOK, map[string]any{
		"file": s.Policy.UserPath, "text": string(text), "rules": p.Effective(policy.Mode(s.DefaultMode)), "mode": s.DefaultMode, "notices": p.Notices(),
	})
}

func (s *Server) putPolicy(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Text string `json:"text"`
	}
	if err := decodeBody(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	if len(req.Text) > maxPolicyBytes {
		s.fail(w, r, &httpError{http.StatusRequestEntityTooLarge, "the policy file may be at most 1 MiB"})
		return
	}
	if err := policy.WriteUserFile(s.Policy.UserPath, []byte(req.Text)); err != nil {
		s.fail(w, r, &httpError{http.StatusBadRequest, err.Error()})
		return
	}
	if err := s.Policy.Reload(); err != nil {
		s.fail(w, r, &httpError{http.StatusBadRequest, err.Error()})
		return
	}
	s.Emit(r.Context(), "policy.changed", "human", "", map[string]any{"file": s.Policy.UserPath, "bytes": len(req.Text)})
	s.getPolicy(w, r)
}

type policyTest struct {
	Tool string   `json:"tool"`
	Argv []string `json:"argv"`
	Path string   `json:"path"`
	URL  string   `json:"url"`
	Mode string   `json:"mode"`
}

// testPolicy answers "what would happen if an agent ran X".
func (s *Server) testPolicy(w http.ResponseWriter, r *http.Request) {
	var req policyTest
	if err := decodeBody(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	mode, err := policy.ParseMode(req.Mode)
	if err != nil {
		s.fail(w, r, &httpError{http.StatusBadRequest, err.Error()})
		return
	}
	ws := s.Policy.Workspaces
	if len(ws) == 0 {
		s.fail(w, r, &httpError{http.StatusBadRequest, "the daemon has no workspace"})
		return
	}
	call := policy.Action{Tool: req.Tool, Argv: req.Argv, URL: req.URL, Cwd: ws[0]}
	switch req.Tool {
	case policy.ToolRunCommand:
		if len(req.Argv) == 0 {
			s.fail(w, r, &httpError{http.StatusBadRequest, "give argv for run_command"})
			return
		}
		bin, err := policy.ResolveBinary(req.Argv[0], s.runPath(), ws[0])
		if err != nil {
			s.fail(w, r, &httpError{http.StatusBadRequest, req.Argv[0] + " is not found on the sandbox PATH"})
			return
		}
		call.Binary = bin
	case policy.ToolReadFile, policy.ToolWriteFile, policy.ToolEditFile, policy.ToolListDir, policy.ToolSearchFiles:
		p := req.Path
		if p == "" {
			p = "."
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(ws[0], p)
		}
		call.Paths = []string{filepath.Clean(p)}
	case policy.ToolFetchURL, policy.ToolAskHuman:
	default:
		s.fail(w, r, &httpError{http.StatusBadRequest, "tool must be one of run_command, read_file, write_file, edit_file, list_dir, search_files, fetch_url, ask_human"})
		return
	}
	home, _ := os.UserHomeDir()
	dec := s.Policy.Get().Decide(policy.Session{Mode: mode, Workspaces: ws, Home: home}, call)
	writeJSON(w, http.StatusOK, dec)
}

// runPath is the PATH commands are looked up in, as run_command does.
func (s *Server) runPath() string {
	if s.RunPath != "" {
		return s.RunPath
	}
	return sandbox.DefaultPath
}
