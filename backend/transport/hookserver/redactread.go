package hookserver

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/backend/transport/hookwire"
	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

// maxRedactRead bounds the file an agent's own read is given a redacted
// copy of; a larger one is read as it is when nothing in it needs
// redacting, and not at all otherwise (the agent's Read pages large
// files; read_file redacts each page).
const maxRedactRead = 8 << 20

// redactOverlap is how much of one window of a large file the next one
// repeats, so that a secret across the cut is seen whole in one of them.
const redactOverlap = 64 << 10

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
	if errors.Is(err, errTooLargeToRedact) {
		return deny("%s is larger than %d MiB and holds secrets Gatehouse redacts (private keys, tokens), so the agent's own read of it was blocked; read it with Gatehouse's read_file tool, which redacts each page it returns.", n.paths[0], maxRedactRead>>20)
	}
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

// errTooLargeToRedact: a file over maxRedactRead holds a secret.
var errTooLargeToRedact = errors.New("too large to redact")

// redactedCopy writes path's redacted content to a private copy and says
// whether it differs from the file. Every file is checked, text or not
// (a key in a Latin-1 file or an archive is still a key); a missing one
// is left to the agent's tool, which says so itself.
func (s *Server) redactedCopy(path, dir string) (string, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", false, nil
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRedactRead+1))
	if err != nil {
		return "", false, nil
	}
	if len(b) > maxRedactRead {
		if s.holdsSecret(f, b) {
			return "", false, errTooLargeToRedact
		}
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

// holdsSecret reads the rest of f, whose first bytes are first, window
// by window, and says whether any window holds something to redact.
func (s *Server) holdsSecret(f io.Reader, first []byte) bool {
	// Two buffers take turns: a window's tail starts the next one.
	win, spare := first, make([]byte, maxRedactRead)
	for {
		if text := string(win); s.cfg.Redact(text) != text {
			return true
		}
		keep := copy(spare, win[len(win)-redactOverlap:])
		n, err := io.ReadFull(f, spare[keep:])
		if n == 0 || err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			return false
		}
		win, spare = spare[:keep+n], win[:maxRedactRead]
		if errors.Is(err, io.ErrUnexpectedEOF) {
			text := string(win)
			return s.cfg.Redact(text) != text
		}
	}
}

// ConfinedRedacted is where a confined run's redacted copies go: a
// directory of its own, the only part of the data dir its sandbox shows.
func ConfinedRedacted(redacted, run string) string {
	return filepath.Join(redacted, "run-"+run)
}
