-- Node agents (issue 17): what the service knows of each node's agent (the last applied report's
-- sequence number and time, the agent's interval and source), and the nodes an agent token may
-- report for. Portable across H2 and PostgreSQL.
ALTER TABLE node ADD COLUMN agent_sequence BIGINT;
ALTER TABLE node ADD COLUMN agent_report_at TIMESTAMP WITH TIME ZONE;
ALTER TABLE node ADD COLUMN agent_interval_seconds INTEGER;
ALTER TABLE node ADD COLUMN agent_source VARCHAR(64);

-- An agent token is bound to a list of node ids (comma-separated; node ids have no commas).
ALTER TABLE api_token ADD COLUMN nodes TEXT;
