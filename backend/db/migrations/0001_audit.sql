-- Append-only, hash-chained audit timeline. See backend/audit for the hash
-- definition. seq is the rowid, so (session, seq) and (kind, seq) indexes give
-- "last N of one session/kind" as a short backwards index walk.
CREATE TABLE audit_events (
	seq       INTEGER PRIMARY KEY,
	time_ns   INTEGER NOT NULL,           -- Unix nanoseconds, UTC
	session   TEXT    NOT NULL DEFAULT '',
	call_id   TEXT    NOT NULL DEFAULT '',
	kind      TEXT    NOT NULL,
	actor     TEXT    NOT NULL,
	payload   TEXT    NOT NULL,           -- canonical JSON object
	prev_hash BLOB    NOT NULL,           -- 32 bytes
	hash      BLOB    NOT NULL            -- 32 bytes
) STRICT;

CREATE INDEX audit_events_session_seq ON audit_events(session, seq);
CREATE INDEX audit_events_kind_seq    ON audit_events(kind, seq);
CREATE INDEX audit_events_time        ON audit_events(time_ns);

-- Guards against our own bugs, not against someone with the file: Verify is
-- what detects edits made behind SQLite's back.
CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
BEGIN
	SELECT RAISE(ABORT, 'audit events are append-only');
END;
CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
BEGIN
	SELECT RAISE(ABORT, 'audit events are append-only');
END;
