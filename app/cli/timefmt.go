package cli

import "time"

// Times the CLI prints are local and carry their zone, so a reader in
// another zone (or reading a pasted log) cannot misread them.
const stampLayout = "2006-01-02 15:04:05 MST"

// stamp is a date and time, for rows that may span days.
func stamp(t time.Time) string { return t.Local().Format(stampLayout) }

// clock is the time of day with milliseconds, for the live timeline.
func clock(t time.Time) string { return t.Local().Format("15:04:05.000 MST") }
