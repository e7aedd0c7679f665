-- Workspace cards (an agent started in a project no root holds). The kind
-- loses its CHECK: the broker's Kind type is the one list of kinds, and
-- each new one no longer needs the table rebuilt (SQLite cannot change a
-- CHECK in place).
CREATE TABLE approvals_new (
	id          TEXT PRIMARY KEY,
	session     TEXT NOT NULL,
	call_id     TEXT NOT NULL,
	kind        TEXT NOT NULL,
	request     TEXT NOT NULL,            -- JSON card shown to the person (redacted)
	status      TEXT NOT NULL CHECK (status IN ('pending', 'allowed', 'denied', 'expired', 'answered', 'withdrawn')),
	scope       TEXT NOT NULL DEFAULT '',
	message     TEXT NOT NULL DEFAULT '',
	decided_by  TEXT NOT NULL DEFAULT '',
	created_ns  INTEGER NOT NULL,
	expires_ns  INTEGER NOT NULL,
	decided_ns  INTEGER
);
INSERT INTO approvals_new SELECT id, session, call_id, kind, request, status, scope, message, decided_by, created_ns, expires_ns, decided_ns FROM approvals;
DROP TABLE approvals;
ALTER TABLE approvals_new RENAME TO approvals;
CREATE INDEX approvals_status ON approvals (status, created_ns);
