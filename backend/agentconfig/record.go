package agentconfig

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/backend/atomicfile"
)

// record is what an install keeps under the data dir so that uninstall can
// put every file back byte for byte.
type record struct {
	Agent Agent        `json:"agent"`
	Scope Scope        `json:"scope"`
	Files []fileRecord `json:"files"`
	// Dirs are the directories install created, removed again when empty.
	Dirs []string `json:"created_dirs,omitempty"`
}

type fileRecord struct {
	Path string `json:"path"`
	// Existed is false when install created the file.
	Existed  bool        `json:"existed"`
	Mode     fs.FileMode `json:"mode,omitempty"`
	Original []byte      `json:"original,omitempty"`
	// Installed is the SHA-256 of what install wrote: a file that still
	// hashes to it is as install left it.
	Installed string `json:"installed_sha256"`
}

func sum(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func recordPath(dataDir string, a Agent, scope Scope) string {
	return filepath.Join(dataDir, "agents", fmt.Sprintf("%s.%s.json", a, scope))
}

func loadRecord(dataDir string, a Agent, scope Scope) (*record, error) {
	var r record
	if found, err := atomicfile.ReadJSON(recordPath(dataDir, a, scope), "install record", &r); !found || err != nil {
		return nil, err
	}
	return &r, nil
}

func saveRecord(dataDir string, r *record) error {
	p := recordPath(dataDir, r.Agent, r.Scope)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(p), err)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	// Originals may hold the person's own secrets: 0600, in the 0700 data dir.
	return atomicfile.Write(p, b, 0o600)
}

func (r *record) file(path string) *fileRecord {
	for i := range r.Files {
		if r.Files[i].Path == path {
			return &r.Files[i]
		}
	}
	return nil
}
