/**
 * Versioned schema of the PostgreSQL store, applied in order under an advisory lock (see `migrate`).
 * Append a migration to change the schema; never edit an applied one. Times of sessions and calls are epoch
 * milliseconds (double precision); `metric_results.computed_at` is the result's timestamp as a timestamptz.
 */
export const POSTGRES_MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'sessions, calls, MCP servers, metrics and results',
    sql: `
CREATE TABLE sessions (
  id text PRIMARY KEY,
  start_time double precision NOT NULL,
  end_time double precision NOT NULL,
  service_name text,
  app_name text,
  trace_ids text[] NOT NULL DEFAULT '{}',
  user_input text,
  final_response text,
  attributes json
);
CREATE INDEX sessions_start ON sessions (start_time DESC);

CREATE TABLE calls (
  session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  id text NOT NULL,
  kind text NOT NULL,
  seq integer NOT NULL,
  name text NOT NULL,
  trace_id text,
  parent_id text,
  start_time double precision NOT NULL,
  end_time double precision NOT NULL,
  status text NOT NULL,
  payload json NOT NULL,
  PRIMARY KEY (session_id, id)
);
CREATE INDEX calls_seq ON calls (session_id, seq);

CREATE TABLE mcp_servers (
  session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  name text NOT NULL,
  seq integer NOT NULL,
  transport text,
  payload json NOT NULL,
  PRIMARY KEY (session_id, name)
);

CREATE TABLE metrics (
  id text PRIMARY KEY,
  name text NOT NULL,
  computed_by text NOT NULL,
  unit text NOT NULL,
  value_range text NOT NULL,
  description text
);

CREATE TABLE metric_results (
  id text PRIMARY KEY,
  name text NOT NULL,
  result double precision NOT NULL,
  reasoning text NOT NULL,
  evaluation_model text,
  evaluation_prompt_token_count integer NOT NULL,
  evaluation_completion_token_count integer NOT NULL,
  evaluation_total_token_count integer NOT NULL,
  evaluation_cost double precision NOT NULL,
  "timestamp" text NOT NULL,
  computed_at timestamptz NOT NULL,
  of_metric_type text NOT NULL,
  measures_level text NOT NULL,
  measures_id text NOT NULL,
  session_id text NOT NULL,
  details json
);
CREATE INDEX metric_results_session ON metric_results (session_id, computed_at DESC);
`,
  },
  {
    // Result ids and their session ids are compared byte-wise: both indexes of metric_results are probed once per
    // stored result (hundreds of thousands a minute from the workers), and the "C" collation compares with memcmp
    // instead of the locale's strcoll (about 20% less insert time measured on PostgreSQL 15). Ids only need a
    // stable order (ties of "newest first", the lock order of bulk upserts); under a C.UTF-8 database it is the same.
    // Rebuilds the two indexes once.
    version: 2,
    name: 'metric_results ids compared byte-wise',
    sql: `ALTER TABLE metric_results ALTER COLUMN id TYPE text COLLATE "C", ALTER COLUMN session_id TYPE text COLLATE "C";`,
  },
  {
    // One index instead of two: every read of results is by session, and a session's results land next to each other
    // in (session_id, id) where ids alone scatter them over the whole tree. Each stored result then updates one B-tree,
    // not two: about 30% less PostgreSQL time per COPYed result (bench/worker). Result ids are unique by construction
    // (they hash the session in), so the pair identifies a result as the id did; ON CONFLICT targets the pair.
    version: 3,
    name: 'metric_results keyed by (session_id, id)',
    sql: `ALTER TABLE metric_results DROP CONSTRAINT metric_results_pkey, ADD PRIMARY KEY (session_id, id);
DROP INDEX metric_results_session;`,
  },
  {
    // "Newest first" sorts on epoch milliseconds, as in the SQLite and Neo4j stores: a bigint column costs PostgreSQL
    // an integer parse per COPYed result where a timestamptz cost a date parse (about 25% of COPY time measured).
    // Rewrites the table once.
    version: 4,
    name: 'metric_results.computed_at in epoch milliseconds',
    sql: `ALTER TABLE metric_results ALTER COLUMN computed_at TYPE bigint USING floor(extract(epoch FROM computed_at) * 1000)::bigint;`,
  },
  {
    // Session listings count each session's calls per kind: with the kind in the (session_id, seq) index those
    // counts are index-only scans instead of a visit to every call's (payload-wide) row — 10,000 sessions of 50
    // calls listed in 282 ms instead of 1,097 ms. No index is added; the one that finds a session's last position
    // (MAX(seq)) carries one more small column.
    version: 5,
    name: 'calls_seq carries the call kind',
    sql: `CREATE INDEX calls_seq_kind ON calls (session_id, seq) INCLUDE (kind);
DROP INDEX calls_seq;
ALTER INDEX calls_seq_kind RENAME TO calls_seq;`,
  },
  {
    // Results across sessions (queryMetricResults), newest first: walked backwards, this index gives them in time
    // order and stops at the page's end, and it bounds a time window. Ties (the results of one task share their
    // timestamp) are put in id order by sorting each group of equal times alone. The id is left out of the key: it
    // would make every entry several times larger, and each result write pays for its entry (writes were about a
    // tenth faster with the time alone than with (computed_at, id), measured).
    // New results carry the latest times, so their entries go to the right-hand edge of the tree, and the results of a
    // task, sharing one time, are deduplicated into one posting list. Builds once.
    version: 6,
    name: 'metric_results by computed_at',
    sql: `CREATE INDEX metric_results_computed ON metric_results (computed_at);`,
  },
  {
    // A session's element counts kept in its row, written with its calls: a listing counted the calls of every listed
    // session (about 25 ms for a 100,000-call session). Counted once here for the sessions already stored; the
    // defaults are constants, so adding the columns does not rewrite the table.
    version: 7,
    name: 'sessions carry their element counts',
    sql: `
ALTER TABLE sessions ADD COLUMN mas_call_count integer NOT NULL DEFAULT 0, ADD COLUMN agent_call_count integer NOT NULL DEFAULT 0,
  ADD COLUMN task_call_count integer NOT NULL DEFAULT 0, ADD COLUMN llm_call_count integer NOT NULL DEFAULT 0,
  ADD COLUMN tool_call_count integer NOT NULL DEFAULT 0, ADD COLUMN mcp_server_count integer NOT NULL DEFAULT 0;
UPDATE sessions s SET mas_call_count = c.mas, agent_call_count = c.agent, task_call_count = c.task,
  llm_call_count = c.llm, tool_call_count = c.tool
FROM (SELECT session_id, COUNT(*) FILTER (WHERE kind = 'MASCall') AS mas, COUNT(*) FILTER (WHERE kind = 'AgentCall') AS agent,
    COUNT(*) FILTER (WHERE kind = 'TaskCall') AS task, COUNT(*) FILTER (WHERE kind = 'LLMCall') AS llm,
    COUNT(*) FILTER (WHERE kind = 'ToolCall') AS tool
  FROM calls GROUP BY session_id) AS c
WHERE c.session_id = s.id;
UPDATE sessions s SET mcp_server_count = m.n
FROM (SELECT session_id, COUNT(*) AS n FROM mcp_servers GROUP BY session_id) AS m
WHERE m.session_id = s.id;
`,
  },
];
