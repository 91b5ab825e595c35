/**
 * The PostgreSQL `ResultFlush`: one transaction held open while a worker computes a batch. Valid results stream into
 * a direct COPY under a savepoint as they are added; `commit` ends the COPY and, when an id was already stored (a
 * redelivered message) or repeated, rolls back to the savepoint and upserts everything through the staging table.
 * Results that point at a Metric the batch's definitions do not provide are checked against the stored ones at commit.
 */
import type pg from 'pg';
import type { MetricResult } from '@mce/core';
import { rejectionOf, sessionIdsOf, splitByStoredSession } from '@mce/store/adapter';
import type { RejectedResult, ResultFlush, StoreLogger, WriteResultsOutcome } from '@mce/store';
import { byKey, copyResults, lockStoredSessions, ResultCopyStream, resultKey, upsertResults } from './result-copy.js';
import { postgresLimits } from './result-rows.js';

export class PostgresResultFlush implements ResultFlush {
  readonly #client: pg.PoolClient;
  readonly #known: Set<string>;
  readonly #logger: StoreLogger;
  readonly #valid: MetricResult[] = [];
  readonly #rejected: { index: number; rejection: RejectedResult }[] = [];
  readonly #deferred: { index: number; result: MetricResult }[] = [];
  #copy: ResultCopyStream | undefined;
  #count = 0;
  #closed = false;

  /** `client` is inside a transaction with the savepoint `mce_copy` set. */
  constructor(client: pg.PoolClient, knownMetricIds: Iterable<string>, logger: StoreLogger) {
    this.#client = client;
    this.#known = new Set(knownMetricIds);
    this.#logger = logger;
    this.#copy = new ResultCopyStream(client);
  }

  add(results: readonly MetricResult[]): void {
    if (this.#closed) throw new Error('the result flush is already committed or aborted');
    const copy = this.#copy as ResultCopyStream;
    const accepted: MetricResult[] = [];
    for (const result of results) {
      const index = this.#count++;
      if (typeof result?.ofMetricType === 'string' && !this.#known.has(result.ofMetricType)) {
        this.#deferred.push({ index, result });
        continue;
      }
      const rejection = rejectionOf(result, index, this.#known, this.#logger, postgresLimits);
      if (rejection) {
        this.#rejected.push({ index, rejection });
        continue;
      }
      this.#valid.push(result);
      accepted.push(result);
    }
    // In key order: one session's rows then fill its few B-tree leaf pages one after the other instead of hopping
    // between them (about 15% less PostgreSQL time per row measured).
    accepted.sort(byKey);
    for (const result of accepted) copy.write(result);
    copy.flush();
  }

  async commit(): Promise<WriteResultsOutcome> {
    if (this.#closed) throw new Error('the result flush is already committed or aborted');
    this.#closed = true;
    const client = this.#client;
    try {
      const copied = await (this.#copy as ResultCopyStream).finish();
      this.#copy = undefined;
      if (copied === 'retry-staged') await client.query('ROLLBACK TO SAVEPOINT mce_copy');
      await client.query('RELEASE SAVEPOINT mce_copy');
      // After the COPY (it only inserted rows), before any upsert: see lockStoredSessions. Released with the
      // savepoint otherwise, hence taken after it.
      const stored = await lockStoredSessions(client, sessionIdsOf([...this.#valid, ...this.#deferred.map((d) => d.result)]));
      const unique = [...new Map(this.#valid.map((r) => [resultKey(r), r])).values()];
      const { kept, rejected } = splitByStoredSession(unique, stored, this.#logger);
      if (copied === 'retry-staged') await upsertResults(client, kept);
      else if (rejected.length > 0) {
        const gone = sessionIdsOf(unique.filter((r) => !stored.has(r.sessionId)));
        await client.query('DELETE FROM metric_results WHERE session_id = ANY($1)', [gone]);
      }
      const written = kept.length + (await this.#writeDeferred(stored));
      await client.query('COMMIT');
      client.release();
      return { written, rejected: [...this.#rejected.sort((a, b) => a.index - b.index).map((r) => r.rejection), ...rejected] };
    } catch (error) {
      await this.#rollback();
      throw error;
    }
  }

  async abort(): Promise<void> {
    if (this.#closed && this.#copy === undefined) return;
    this.#closed = true;
    await this.#rollback();
  }

  /** The results whose Metric was not among the batch's definitions: known ones are written, the rest rejected. */
  async #writeDeferred(stored: ReadonlySet<string>): Promise<number> {
    if (this.#deferred.length === 0) return 0;
    const ids = [...new Set(this.#deferred.map((d) => d.result.ofMetricType))];
    const found = await this.#client.query<{ id: string }>('SELECT id FROM metrics WHERE id = ANY($1)', [ids]);
    for (const { id } of found.rows) this.#known.add(id);
    const valid = new Map<string, MetricResult>();
    for (const { index, result } of this.#deferred) {
      const rejection = rejectionOf(result, index, this.#known, this.#logger, postgresLimits);
      if (rejection) this.#rejected.push({ index, rejection });
      else valid.set(resultKey(result), result);
    }
    const { kept, rejected } = splitByStoredSession([...valid.values()], stored, this.#logger);
    this.#rejected.push(...rejected.map((rejection) => ({ index: Infinity, rejection })));
    await copyResults(this.#client, kept);
    return kept.length;
  }

  async #rollback(): Promise<void> {
    const copy = this.#copy;
    this.#copy = undefined;
    try {
      await copy?.cancel();
      await this.#client.query('ROLLBACK');
      this.#client.release();
    } catch (error) {
      this.#client.release(error as Error); // a connection in an unknown state is discarded, not reused
    }
  }
}
