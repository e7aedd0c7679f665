-- Sessions: one MCP connection or stdio bridge each.
CREATE TABLE sessions (
	id             TEXT PRIMARY KEY,
	client         TEXT NOT NULL DEFAULT '',   -- name bound to the agent token
	client_name    TEXT NOT NULL DEFAULT '',   -- MCP clientInfo.name
	client_version TEXT NOT NULL DEFAULT '',
	transport      TEXT NOT NULL DEFAULT '',
	workspaces     TEXT NOT NULL DEFAULT '[]', -- JSON array of absolute paths
	mode           TEXT NOT NULL DEFAULT 'default',
	started_ns     INTEGER NOT NULL,
	ended_ns       INTEGER,
	status         TEXT NOT NULL CHECK (status IN ('active', 'ended', 'killed')),
	end_reason     TEXT NOT NULL DEFAULT '',
	calls          INTEGER NOT NULL DEFAULT 0,
	allowed        INTEGER NOT NULL DEFAULT 0,
	asked          INTEGER NOT NULL DEFAULT 0,
	denied         INTEGER NOT NULL DEFAULT 0,
	errors         INTEGER NOT NULL DEFAULT 0,
	output_bytes   INTEGER NOT NULL DEFAULT 0,
	cpu_ms         INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX sessions_started ON sessions (started_ns DESC);
CREATE INDEX sessions_status ON sessions (status);

-- Bearer tokens, stored only as SHA-256 hashes.
CREATE TABLE tokens (
	id         TEXT PRIMARY KEY,
	kind       TEXT NOT NULL CHECK (kind IN ('agent', 'control')),
	name       TEXT NOT NULL,
	hash       TEXT NOT NULL UNIQUE,
	created_ns INTEGER NOT NULL,
	revoked_ns INTEGER
);
