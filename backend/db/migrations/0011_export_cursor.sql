-- Where each export sink stands in the audit timeline: every event with
-- seq <= sent_seq has been delivered to it at least once. The audit itself
-- is the backlog, so nothing else is kept; dropped counts events skipped
-- because the backlog passed its bound (each skip is an export.dropped row).
CREATE TABLE export_cursor (
	sink     TEXT    PRIMARY KEY,          -- otlp | ocsf
	sent_seq INTEGER NOT NULL DEFAULT 0,
	sent_ns  INTEGER NOT NULL DEFAULT 0,   -- Unix nanoseconds of the last delivery
	dropped  INTEGER NOT NULL DEFAULT 0
) STRICT;
