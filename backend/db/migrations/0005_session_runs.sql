-- An agent run a session belongs to (agent:run-id, shared by the agent's
-- MCP bridge and its hooks) and the person's stated goal for it.
ALTER TABLE sessions ADD COLUMN run TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN goal TEXT NOT NULL DEFAULT '';
