package hookserver

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/backend/transport/hookwire"
	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

// maxRedactRead bounds the file an agent's own read is checked in full;
// a larger one is read by the agent as it is only when nothing in its
// first part needs redacting (the agent's Read pages large files).
const maxRedactRead = 8 << 20

// readAnswer allows an agent's own read of one file. When the file holds
// something Gatehouse redacts (a private key, a token), the read is
// pointed at a redacted copy instead: the model sees what read_file would
// show it, whatever the person allowed. A read the hook cannot rewrite
// (several files, a directory, a search) goes as it is.
//
// A confined run (`gatehouse run`) sees only what its sandbox shows, so
// the daemon copies nothing from outside its workspace for it (the path
// names, outside the project, what the run's own home holds, not the
// person's), and writes the copy where the run is shown it:
// Redacted/run-ID, which `gatehouse run` shows read-only inside.
func (s *Server) readAnswer(ev hookwire.Event, n native, st *session.State, key session.RunKey) hookwire.Answer {
	if n.pathKey == "" || len(n.paths) != 1 || s.cfg.Redact == nil || s.cfg.Redacted == "" {
		return allow
	}
	dir := s.cfg.Redacted
	if key.Agent == session.ConfinedAgent {
		if !workspace.InsideAny(n.paths[0], st.Workspaces) {
			return allow
		}
		dir = ConfinedRedacted(s.cfg.Redacted, key.ID)
	}
	copyPath, changed, err := s.redactedCopy(n.paths[0], dir)
	if err != nil {
		s.cfg.Logger.Warn("redact a file for an agent's read", "path", n.paths[0], "err", err)
		return deny("Gatehouse could not check %s for secrets before the agent reads it, so it blocked the read; read it with Gatehouse's read_file tool instead.", n.paths[0])
	}
	if !changed {
		return allow
	}
	input, err := replaceMember(ev.Input, n.pathKey, copyPath)
	if err != nil {
		return deny("Gatehouse blocked this read: %v.", err)
	}
	return hookwire.Answer{Verdict: hookwire.Allow, Input: input,
		Reason: "Gatehouse hands the agent a copy of " + n.paths[0] + " with its secrets (private keys, tokens) redacted, as its own read_file would."}
}

// redactedCopy writes path's redacted text to a private copy and says
// whether it differs from the file. A missing or binary file is left to
// the agent's tool, which says so itself.
func (s *Server) redactedCopy(path, dir string) (string, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", false, nil
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRedactRead))
	if err != nil || !utf8.Valid(b) {
		return "", false, nil
	}
	text := string(b)
	red := s.cfg.Redact(text)
	if red == text {
		return "", false, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", false, err
	}
	sum := sha256.Sum256([]byte(path))
	out := filepath.Join(dir, hex.EncodeToString(sum[:8])+"-"+filepath.Base(path))
	if err := os.WriteFile(out, []byte(red), 0o600); err != nil {
		return "", false, fmt.Errorf("write the redacted copy: %w", err)
	}
	return out, true, nil
}

// ConfinedRedacted is where a confined run's redacted copies go: a
// directory of its own, the only part of the data dir its sandbox shows.
func ConfinedRedacted(redacted, run string) string {
	return filepath.Join(redacted, "run-"+run)
}
