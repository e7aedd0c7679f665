-- How each session's calls ended, one count per outcome (session.Tally),
-- as JSON: each ended call is counted once. Sessions recorded before
-- have none.
ALTER TABLE sessions ADD COLUMN outcomes TEXT NOT NULL DEFAULT '{}';
