package fsops

// Bounds on what one call may read, write or return.
const (
	DefaultReadBytes = 256 << 10 // bytes returned by a read unless asked otherwise
	MaxReadBytes     = 4 << 20   // most bytes one read returns
	DefaultReadLines = 2000
	MaxReadLines     = 100_000
	MaxWriteBytes    = 10 << 20 // largest file write_file or edit_file produces
	maxCountBytes    = 64 << 20 // files up to this size get a total line count

	DefaultListDepth   = 1
	MaxListDepth       = 5
	DefaultListEntries = 2000
	MaxListEntries     = 10_000

	DefaultSearchMatches = 500
	MaxSearchMatches     = 5000
	MaxSearchFileBytes   = 4 << 20 // larger files are skipped by search
	MaxMatchLineChars    = 200
	MaxPatternBytes      = 4096

	sniffBytes = 8 << 10 // how much of a file decides whether it is binary
)
