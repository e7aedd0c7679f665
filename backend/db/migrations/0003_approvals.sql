-- Approvals: calls (and ask_human questions) waiting for the person.
CREATE TABLE approvals (
	id          TEXT PRIMARY KEY,
	session     TEXT NOT NULL,
	call_id     TEXT NOT NULL,
	kind        TEXT NOT NULL CHECK (kind IN ('call', 'question', 'limit')),
	request     TEXT NOT NULL,            -- JSON card shown to the person (redacted)
	status      TEXT NOT NULL CHECK (status IN ('pending', 'allowed', 'denied', 'expired', 'answered')),
	scope       TEXT NOT NULL DEFAULT '',
	message     TEXT NOT NULL DEFAULT '',
	decided_by  TEXT NOT NULL DEFAULT '',
	created_ns  INTEGER NOT NULL,
	expires_ns  INTEGER NOT NULL,
	decided_ns  INTEGER
);
CREATE INDEX approvals_status ON approvals (status, created_ns);
