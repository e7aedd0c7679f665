package config

import (
	"fmt"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/backend/export"
)

// Export sends the audit to a team's systems ([export]). Empty: nothing
// leaves the machine.
type Export struct {
	// OTLPEndpoint is an OpenTelemetry collector's OTLP/HTTP address,
	// "http://HOST:PORT"; logs go to its /v1/logs.
	OTLPEndpoint string `toml:"otlp_endpoint"`
	// OTLPHeaders go with every request: the collector's auth. They never
	// appear in logs or on the status screen.
	OTLPHeaders map[string]string `toml:"otlp_headers"`
	// OCSFFile is a file OCSF JSON lines are appended to.
	OCSFFile string `toml:"ocsf_file"`
	// MaxBacklog bounds how many events a sink may lag behind before the
	// oldest are skipped (with an export.dropped audit row).
	MaxBacklog int64 `toml:"max_backlog"`
}

// On reports whether anything is exported.
func (e Export) On() bool { return e.OTLPEndpoint != "" || e.OCSFFile != "" }

func (e Export) validate() error {
	if e.OTLPEndpoint != "" {
		if _, err := export.ParseEndpoint(e.OTLPEndpoint); err != nil {
			return fmt.Errorf("export.otlp_endpoint: %w", err)
		}
	}
	if len(e.OTLPHeaders) > 0 && e.OTLPEndpoint == "" {
		return fmt.Errorf("export.otlp_headers are set but export.otlp_endpoint is not; name the collector")
	}
	if err := export.CheckHeaders(e.OTLPHeaders); err != nil {
		return fmt.Errorf("export.%w", err)
	}
	if e.OCSFFile != "" && !filepath.IsAbs(e.OCSFFile) {
		return fmt.Errorf("export.ocsf_file %q must be an absolute path", e.OCSFFile)
	}
	if e.MaxBacklog < 0 {
		return fmt.Errorf("export.max_backlog must be a number of events, 0 or more (0 keeps the default of %d), not %d", export.DefaultMaxBacklog, e.MaxBacklog)
	}
	return nil
}
