package daemon

import (
	"log/slog"
	"os"
	"path/filepath"
	"time"
)

// redactedMaxAge is how long a redacted copy is kept: an agent reads its
// copy the moment its hook answers, so a day covers any session left
// open, and the copies of reads long done, and of runs whose CLI was
// killed before it removed its own, do not pile up in the data dir.
const redactedMaxAge = 24 * time.Hour

// pruneRedacted removes from dir (the data dir's redacted copies) every
// copy, and every run's directory of copies, last written before
// now-redactedMaxAge. It runs when the daemon starts; what it cannot
// remove is logged and left.
func pruneRedacted(dir string, now time.Time, logger *slog.Logger) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return // none yet
	}
	for _, e := range ents {
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < redactedMaxAge {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			logger.Warn("remove an old redacted copy", "path", filepath.Join(dir, e.Name()), "err", err)
		}
	}
}
