package desktop

import (
	"io"
	"log/slog"
	"os"
)

// outputs are where a launch logs and what it tells the person: the
// ones given, or the process's own.
func outputs(logger *slog.Logger, stderr io.Writer) (*slog.Logger, io.Writer) {
	if logger == nil {
		logger = slog.Default()
	}
	if stderr == nil {
		stderr = os.Stderr
	}
	return logger, stderr
}
