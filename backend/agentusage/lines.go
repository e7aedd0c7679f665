package agentusage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// readLines reads the JSON-lines file at path, which what names in an error
// ("Codex's rollout"), and hands each line that is not blank to each,
// decoded, with its line number. The error, a reason for Unknown, says the
// file could not be read, ends in a partial line (cut short, or being
// written) or holds a line that is not JSON; or it is each's own.
func readLines[T any](path, what string, each func(n int, l *T) error) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s could not be read: %v", what, err)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		return fmt.Errorf("%s ends in a partial line (cut short, or being written)", what)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var l T
		if err := json.Unmarshal(line, &l); err != nil {
			return fmt.Errorf("line %d of %s is not JSON (truncated or corrupt)", n, what)
		}
		if err := each(n, &l); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s could not be read: %v", what, err)
	}
	return nil
}
