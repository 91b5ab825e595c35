/**
 * Bulk result upsert for PostgreSQL: the results stream into a per-connection temporary staging table with COPY
 * (text format: no parameter arrays to escape on our side or parse on the server's), then one
 * `INSERT … SELECT … ORDER BY id ON CONFLICT (id) DO UPDATE` moves them into `metric_results`. The ORDER BY makes two
 * writers upserting overlapping batches lock rows in the same order (no deadlock). The staging table is emptied at
 * every commit (ON COMMIT DELETE ROWS) and, being temporary, writes no WAL.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { MetricResult } from '@mce/core';

const STAGE = 'pg_temp.mce_result_stage';

const CREATE_STAGE = `CREATE TEMPORARY TABLE IF NOT EXISTS mce_result_stage (
  id text, name text, result double precision, reasoning text, evaluation_model text,
  evaluation_prompt_token_count integer, evaluation_completion_token_count integer, evaluation_total_token_count integer,
  evaluation_cost double precision, "timestamp" text, of_metric_type text, measures_level text, measures_id text,
  session_id text, details json
) ON COMMIT DELETE ROWS`;

const COPY_STAGE = `COPY ${STAGE} FROM STDIN`;

const UPSERT_FROM_STAGE = `INSERT INTO metric_results (id, name, result, reasoning, evaluation_model,
    evaluation_prompt_token_count, evaluation_completion_token_count, evaluation_total_token_count, evaluation_cost,
    "timestamp", computed_at, of_metric_type, measures_level, measures_id, session_id, details)
  SELECT id, name, result, reasoning, evaluation_model, evaluation_prompt_token_count, evaluation_completion_token_count,
    evaluation_total_token_count, evaluation_cost, "timestamp", "timestamp"::timestamptz, of_metric_type, measures_level,
    measures_id, session_id, details
  FROM ${STAGE} ORDER BY id
  ON CONFLICT (id) DO UPDATE SET name = excluded.name, result = excluded.result, reasoning = excluded.reasoning,
    evaluation_model = excluded.evaluation_model,
    evaluation_prompt_token_count = excluded.evaluation_prompt_token_count,
    evaluation_completion_token_count = excluded.evaluation_completion_token_count,
    evaluation_total_token_count = excluded.evaluation_total_token_count,
    evaluation_cost = excluded.evaluation_cost, "timestamp" = excluded."timestamp",
    computed_at = excluded.computed_at, of_metric_type = excluded.of_metric_type,
    measures_level = excluded.measures_level, measures_id = excluded.measures_id,
    session_id = excluded.session_id, details = excluded.details`;

/** Connections that already hold the staging table (it lives as long as the connection). */
const staged = new WeakSet<pg.PoolClient>();

/** Creates the staging table on this connection if needed; call OUTSIDE a transaction (a rollback would drop it). */
export async function ensureResultStage(client: pg.PoolClient): Promise<void> {
  if (staged.has(client)) return;
  await client.query(CREATE_STAGE);
  staged.add(client);
}

/** Upserts validated, id-unique results (inside the caller's transaction, after `ensureResultStage`). */
export async function copyResults(client: pg.PoolClient, results: readonly MetricResult[]): Promise<void> {
  if (results.length === 0) return;
  await pipeline(Readable.from(copyChunks(results), { objectMode: false }), client.query(copyFrom(COPY_STAGE)));
  await client.query(UPSERT_FROM_STAGE);
}

/** Rows in COPY text format, in chunks of about 256 kB. */
function* copyChunks(results: readonly MetricResult[]): Generator<string> {
  let chunk = '';
  for (const r of results) {
    chunk += copyLine(r);
    if (chunk.length > 262_144) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

/** One row: tab-separated fields, `\N` for NULL, a newline at the end. */
export function copyLine(r: MetricResult): string {
  return (
    `${text(r.id)}\t${text(r.name)}\t${r.result}\t${text(r.reasoning)}\t` +
    `${r.evaluationModel === null ? '\\N' : text(r.evaluationModel)}\t${r.evaluationPromptTokenCount}\t` +
    `${r.evaluationCompletionTokenCount}\t${r.evaluationTotalTokenCount}\t${r.evaluationCost}\t${text(r.timestamp)}\t` +
    `${text(r.ofMetricType)}\t${r.measures.level}\t${text(r.measures.id)}\t${text(r.sessionId)}\t` +
    `${r.details === undefined ? '\\N' : text(JSON.stringify(r.details))}\n`
  );
}

const SPECIAL = /[\\\t\n\r]/;
const SPECIALS = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A text field of COPY's text format: backslash, tab, newline and carriage return escaped. */
export function text(value: string): string {
  return SPECIAL.test(value) ? value.replace(SPECIALS, (c) => ESCAPES[c] as string) : value;
}
