-- Whole-agent runs (`gatehouse run`): the agent process itself and all it
-- starts ran confined. Sessions recorded before were not.
ALTER TABLE sessions ADD COLUMN confined INTEGER NOT NULL DEFAULT 0;
