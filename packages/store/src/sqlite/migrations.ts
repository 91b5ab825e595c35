/**
 * Versioned schema of the SQLite store. Append a migration to change the schema; never edit an applied one.
 * Times are epoch milliseconds (REAL); JSON columns hold JSON text (query them with `->>`).
 */
export const SQLITE_MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'sessions, calls, MCP servers, metrics and results',
    sql: `
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  start_time REAL NOT NULL,
  end_time REAL NOT NULL,
  service_name TEXT,
  app_name TEXT,
  trace_ids TEXT NOT NULL DEFAULT '[]',
  user_input TEXT,
  final_response TEXT,
  attributes TEXT
);
CREATE INDEX sessions_start ON sessions (start_time DESC);

CREATE TABLE calls (
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  kind TEXT NOT NULL,
  seq INTEGER NOT NULL,
  name TEXT NOT NULL,
  trace_id TEXT,
  parent_id TEXT,
  start_time REAL NOT NULL,
  end_time REAL NOT NULL,
  status TEXT NOT NULL,
  payload TEXT NOT NULL,
  PRIMARY KEY (session_id, id)
) WITHOUT ROWID;
CREATE INDEX calls_seq ON calls (session_id, seq);
CREATE INDEX calls_kind ON calls (session_id, kind);

CREATE TABLE mcp_servers (
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  seq INTEGER NOT NULL,
  transport TEXT,
  payload TEXT NOT NULL,
  PRIMARY KEY (session_id, name)
) WITHOUT ROWID;

CREATE TABLE metrics (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  computed_by TEXT NOT NULL,
  unit TEXT NOT NULL,
  value_range TEXT NOT NULL,
  description TEXT
);

CREATE TABLE metric_results (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  result REAL NOT NULL,
  reasoning TEXT NOT NULL,
  evaluation_model TEXT,
  evaluation_prompt_token_count INTEGER NOT NULL,
  evaluation_completion_token_count INTEGER NOT NULL,
  evaluation_total_token_count INTEGER NOT NULL,
  evaluation_cost REAL NOT NULL,
  timestamp TEXT NOT NULL,
  computed_at REAL NOT NULL,
  of_metric_type TEXT NOT NULL,
  measures_level TEXT NOT NULL,
  measures_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  details TEXT
);
CREATE INDEX metric_results_session ON metric_results (session_id, computed_at DESC);
`,
  },
  {
    // Results across sessions (queryMetricResults), newest first: walked backwards, this index gives them in time
    // order and stops at the page's end, and it bounds a time window. Ties (the results of one task share their
    // timestamp) are put in id order by sorting each group of equal times alone. The id is left out of the key: it
    // would make every entry several times larger, and each result write pays for its entry (writes were about a
    // tenth faster with the time alone than with (computed_at, id), measured).
    version: 2,
    name: 'metric_results by computed_at',
    sql: `CREATE INDEX metric_results_computed ON metric_results (computed_at);`,
  },
  {
    // A session's element counts kept in its row, written with its calls: a listing read them by counting the calls of
    // every listed session, about 5 ms of synchronous SQLite for a 100,000-call session. Counted once here for the
    // sessions already stored (one pass over the calls_kind index).
    version: 3,
    name: 'sessions carry their element counts',
    sql: `
ALTER TABLE sessions ADD COLUMN mas_call_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN agent_call_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN task_call_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN llm_call_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN tool_call_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN mcp_server_count INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET mas_call_count = c.mas, agent_call_count = c.agent, task_call_count = c.task,
  llm_call_count = c.llm, tool_call_count = c.tool
FROM (SELECT session_id, COUNT(*) FILTER (WHERE kind = 'MASCall') AS mas, COUNT(*) FILTER (WHERE kind = 'AgentCall') AS agent,
    COUNT(*) FILTER (WHERE kind = 'TaskCall') AS task, COUNT(*) FILTER (WHERE kind = 'LLMCall') AS llm,
    COUNT(*) FILTER (WHERE kind = 'ToolCall') AS tool
  FROM calls GROUP BY session_id) AS c
WHERE c.session_id = sessions.id;
UPDATE sessions SET mcp_server_count = m.n
FROM (SELECT session_id, COUNT(*) AS n FROM mcp_servers GROUP BY session_id) AS m
WHERE m.session_id = sessions.id;
`,
  },
];
