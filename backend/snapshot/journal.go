package snapshot

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gatehouse-dev/gatehouse/backend/snapshot/pack"
)

// journal is an in-flight rollback. It is durable before the workspace is
// touched, and holds everything needed to finish the rollback.
type journal struct {
	ID      string `json:"id"`
	Session string `json:"session"`
	CallID  string `json:"call_id"`
	Ops     []Op   `json:"ops"`
}

func (s *Store) journalPath(id, ext string) string {
	return filepath.Join(s.dir, "journal", id+ext)
}

func (s *Store) writeJournal(j *journal) error {
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	if err := pack.WriteFileSync(s.journalPath(j.ID, ".json"), data); err != nil {
		return pack.ClassifyIO("write rollback journal", err)
	}
	return pack.ClassifyIO("write rollback journal", pack.SyncDir(filepath.Join(s.dir, "journal")))
}

func (s *Store) removeJournal(id string) {
	_ = os.Remove(s.journalPath(id, ".json"))
	_ = os.Remove(s.journalPath(id, ".progress"))
	_ = pack.SyncDir(filepath.Join(s.dir, "journal"))
}

// progress appends markers as a rollback advances. It is informational (for
// people and tests); recovery replays all steps regardless.
type progress struct {
	mu sync.Mutex
	f  *os.File
	n  int
}

func (s *Store) progress(id string) *progress {
	f, _ := os.OpenFile(s.journalPath(id, ".progress"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	return &progress{f: f}
}

func (p *progress) mark(what string) {
	if p.f != nil {
		p.mu.Lock()
		fmt.Fprintf(p.f, "%s\n", what)
		p.mu.Unlock()
	}
}

func (p *progress) done() {
	p.mu.Lock()
	p.n++
	n := p.n
	p.mu.Unlock()
	if n%16 == 0 {
		p.mark(fmt.Sprintf("wrote %d", n))
	}
}

func (p *progress) close() {
	if p.f != nil {
		p.f.Close()
	}
}

// Recover finishes rollbacks that a crash interrupted. Open calls it; the
// workspace ends in the plan's target state. A rollback whose workspace is
// gone is left journaled and reported.
func (s *Store) Recover(ctx context.Context) error {
	ents, err := os.ReadDir(filepath.Join(s.dir, "journal"))
	if err != nil {
		return fmt.Errorf("read rollback journal: %w", err)
	}
	s.gcMu.RLock()
	defer s.gcMu.RUnlock()
	var errs []error
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") {
			if strings.HasSuffix(name, ".tmp") {
				_ = os.Remove(filepath.Join(s.dir, "journal", name))
			}
			continue
		}
		data, err := os.ReadFile(filepath.Join(s.dir, "journal", name))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var j journal
		if err := json.Unmarshal(data, &j); err != nil {
			errs = append(errs, fmt.Errorf("damaged rollback journal %s: %w", name, err))
			continue
		}
		s.log.Warn("finishing an interrupted rollback", "rollback", j.ID, "steps", len(j.Ops))
		if _, err := s.runOps(ctx, &j); err != nil {
			errs = append(errs, fmt.Errorf("finish interrupted rollback %s: %w", j.ID, err))
			continue
		}
		if _, err := s.checkpointLocked(ctx, j.Session, j.CallID, Post, opScopes(j.Ops)); err != nil {
			s.log.Warn("could not checkpoint after recovered rollback", "rollback", j.ID, "err", err)
		}
		s.removeJournal(j.ID)
	}
	if len(errs) > 0 {
		for _, err := range errs {
			s.log.Error("rollback recovery", "err", err)
		}
	}
	return nil
}
