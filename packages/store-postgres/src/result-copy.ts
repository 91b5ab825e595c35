/**
 * Bulk result upsert for PostgreSQL with COPY (binary format, see result-rows.ts: no parameter arrays to build on our
 * side, no text to scan on the server's). Fresh results — the usual case: ids derive from the message, so only a redelivered message repeats
 * them — are copied straight into `metric_results` under a savepoint. When an id is already stored (unique
 * violation), the savepoint is rolled back and the batch goes the upsert way: COPY into a per-connection temporary
 * staging table (no WAL, emptied at every commit), then one `INSERT … SELECT … ON CONFLICT (session_id, id) DO UPDATE`.
 * Both ways insert in key order, (session_id, id) (code-unit order here, byte order of the "C" collation there: the
 * same for ASCII ids), so two writers with overlapping batches lock rows in the same order (no deadlock).
 */
import { Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { MetricResult } from '@mce/core';
import { binaryCopyData, COPY_BINARY_HEADER, COPY_BINARY_TRAILER, ResultRowEncoder } from './result-rows.js';

const COLUMNS = `id, name, result, reasoning, evaluation_model, evaluation_prompt_token_count,
  evaluation_completion_token_count, evaluation_total_token_count, evaluation_cost, "timestamp", computed_at,
  of_metric_type, measures_level, measures_id, session_id, details`;

const CREATE_STAGE = `CREATE TEMPORARY TABLE IF NOT EXISTS mce_result_stage (
  id text, name text, result double precision, reasoning text, evaluation_model text,
  evaluation_prompt_token_count integer, evaluation_completion_token_count integer, evaluation_total_token_count integer,
  evaluation_cost double precision, "timestamp" text, computed_at bigint, of_metric_type text, measures_level text,
  measures_id text, session_id text, details json
) ON COMMIT DELETE ROWS`;

const COPY_DIRECT = `COPY metric_results (${COLUMNS}) FROM STDIN WITH (FORMAT binary)`;
const COPY_STAGE = `COPY pg_temp.mce_result_stage (${COLUMNS}) FROM STDIN WITH (FORMAT binary)`;

const UPSERT_FROM_STAGE = `INSERT INTO metric_results (${COLUMNS})
  SELECT ${COLUMNS} FROM pg_temp.mce_result_stage ORDER BY session_id COLLATE "C", id COLLATE "C"
  ON CONFLICT (session_id, id) DO UPDATE SET name = excluded.name, result = excluded.result, reasoning = excluded.reasoning,
    evaluation_model = excluded.evaluation_model,
    evaluation_prompt_token_count = excluded.evaluation_prompt_token_count,
    evaluation_completion_token_count = excluded.evaluation_completion_token_count,
    evaluation_total_token_count = excluded.evaluation_total_token_count,
    evaluation_cost = excluded.evaluation_cost, "timestamp" = excluded."timestamp",
    computed_at = excluded.computed_at, of_metric_type = excluded.of_metric_type,
    measures_level = excluded.measures_level, measures_id = excluded.measures_id, details = excluded.details`;

const UNIQUE_VIOLATION = '23505';

/** The table's key, (session_id, id), as one string: what makes two results the same row. */
export const resultKey = (r: MetricResult): string => `${r.sessionId}\u0000${r.id}`;

/** The table's key order: (session_id, id). */
export function byKey(a: MetricResult, b: MetricResult): number {
  if (a.sessionId !== b.sessionId) return a.sessionId < b.sessionId ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * The subset of `ids` stored, each row locked FOR KEY SHARE until the transaction ends: a concurrent `deleteSessions`
 * (which locks the rows FOR UPDATE, in the same id order, before deleting anything) waits for this write to commit
 * and then removes its results; one already deleting makes this wait, and the session is then not found. KEY SHARE,
 * not SHARE: session writes (no-key updates of the row) are not held up. A write takes these locks before any
 * result row it updates (a streamed COPY, before, only inserts rows nobody else sees yet), so that it never holds a
 * row a deletion waits for while waiting for that deletion.
 */
export async function lockStoredSessions(client: pg.PoolClient, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await client.query<{ id: string }>('SELECT id FROM sessions WHERE id = ANY($1) ORDER BY id FOR KEY SHARE', [
    ids.filter((id) => !id.includes('\0')), // none stored has one, and PostgreSQL refuses it as a parameter
  ]);
  return new Set(rows.map((r) => r.id));
}

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
  const sorted = [...results].sort(byKey);
  await client.query('SAVEPOINT mce_copy');
  try {
    await copy(client, COPY_DIRECT, sorted);
    await client.query('RELEASE SAVEPOINT mce_copy');
    return;
  } catch (error) {
    if ((error as { code?: unknown }).code !== UNIQUE_VIOLATION) throw error;
    await client.query('ROLLBACK TO SAVEPOINT mce_copy');
  }
  await copy(client, COPY_STAGE, sorted);
  await client.query(UPSERT_FROM_STAGE);
}

function copy(client: pg.PoolClient, statement: string, results: readonly MetricResult[]): Promise<void> {
  return pipeline(Readable.from(binaryCopyData(results), { objectMode: false }), client.query(copyFrom(statement)));
}

const RETRY_STAGED = new Set(['23505' /* unique violation */, '40P01' /* deadlock: unordered streaming copy */]);

/**
 * A direct COPY into `metric_results` left open while results arrive, for a streaming flush: PostgreSQL parses and
 * inserts one session's rows while the next session is computed. Call `finish` before any other query on the
 * connection; a unique violation (or a deadlock with a writer of the same ids) then tells the caller to roll back to
 * its savepoint and upsert through the staging table instead.
 */
export class ResultCopyStream {
  readonly #stream: ReturnType<typeof copyFrom>;
  readonly #done: Promise<void>;
  readonly #rows = new ResultRowEncoder();
  #failed: unknown;

  constructor(client: pg.PoolClient) {
    this.#stream = client.query(copyFrom(COPY_DIRECT));
    this.#done = finished(this.#stream).catch((error: unknown) => {
      this.#failed = error;
    });
    this.#stream.write(COPY_BINARY_HEADER);
  }

  /** Encodes one row; throws, writing nothing, for a value the table cannot hold. */
  write(result: MetricResult): void {
    this.#rows.write(result);
  }

  /** Hands the encoded rows to the socket (the stream buffers them in memory; a batch is a few MB at most). */
  flush(): void {
    const chunks = this.#rows.take();
    if (this.#failed !== undefined || this.#stream.destroyed) return;
    for (const chunk of chunks) this.#stream.write(chunk);
  }

  /** Ends the COPY: 'copied', 'retry-staged' (the rows must go the upsert way), or throws another failure. */
  async finish(): Promise<'copied' | 'retry-staged'> {
    this.flush();
    if (!this.#stream.destroyed) this.#stream.end(COPY_BINARY_TRAILER);
    await this.#done;
    if (this.#failed === undefined) return 'copied';
    if (RETRY_STAGED.has((this.#failed as { code?: string }).code ?? '')) return 'retry-staged';
    throw this.#failed;
  }

  /** Cancels the COPY (CopyFail); the transaction is then aborted and must be rolled back. */
  async cancel(): Promise<void> {
    if (!this.#stream.destroyed && !this.#stream.writableFinished) this.#stream.destroy(new Error('result flush aborted'));
    await this.#done;
  }
}

/** Upsert through the staging table only (ids may already be stored or repeat; the last occurrence wins). */
export async function upsertResults(client: pg.PoolClient, results: readonly MetricResult[]): Promise<void> {
  const unique = [...new Map(results.map((r) => [resultKey(r), r])).values()];
  if (unique.length === 0) return;
  await copy(client, COPY_STAGE, unique);
  await client.query(UPSERT_FROM_STAGE);
}
