/**
 * A result query across sessions (`queryMetricResults`) as every adapter applies it: the values checked and brought
 * to the form the stores compare (time bounds as whole epoch milliseconds, metrics split into names and Metric ids),
 * and the WHERE clause of the two SQL stores.
 */
import type { ResultCursor, ResultQuery } from './types.js';
import { toEpochMs } from './rows.js';

export interface PlannedResultQuery {
  /** Present when the query names metrics: results whose name is in `names` or whose Metric id is in `metricIds`. */
  metrics?: { names: string[]; metricIds: string[] };
  levels?: string[];
  sessionIds?: string[];
  /** Inclusive bounds on the result's `timestamp` in epoch ms, whole numbers (the stores keep whole milliseconds). */
  from?: number;
  to?: number;
  min?: number;
  max?: number;
  limit?: number;
  offset: number;
  /** After this result (its computed_at, epoch ms, and id) in the order newest first, ties by id. */
  after?: { at: number; id: string };
}

/** The query checked and normalised; undefined when it can match nothing (a list given empty). */
export function planResultQuery(query: ResultQuery): PlannedResultQuery | undefined {
  const { metrics, levels, sessionIds } = query;
  if (metrics?.length === 0 || levels?.length === 0 || sessionIds?.length === 0) return undefined;
  for (const key of ['min', 'max'] as const) {
    const v = query[key];
    if (v !== undefined && !Number.isFinite(v)) throw new Error(`result query: ${key} must be a finite number (got ${v})`);
  }
  for (const key of ['limit', 'offset'] as const) {
    const v = query[key];
    if (v !== undefined && !(Number.isSafeInteger(v) && v >= 0)) throw new Error(`result query: ${key} must be a non-negative integer (got ${v})`);
  }
  const plan: PlannedResultQuery = { offset: query.offset ?? 0 };
  if (metrics) {
    // A Metric id is `provider:name` (`mce:Duration`); a bare name is that metric of every provider.
    const unique = [...new Set(metrics)];
    plan.metrics = { names: unique.filter((m) => !m.includes(':')), metricIds: unique.filter((m) => m.includes(':')) };
  }
  if (levels) plan.levels = [...new Set(levels)];
  if (sessionIds) plan.sessionIds = [...new Set(sessionIds)];
  // computed_at is whole milliseconds (Date.parse): rounding the bounds inwards keeps the same results and lets
  // PostgreSQL compare with its bigint column (and use its index) instead of casting every row to a float.
  if (query.from !== undefined) plan.from = Math.ceil(toEpochMs(query.from));
  if (query.to !== undefined) plan.to = Math.floor(toEpochMs(query.to));
  if (query.min !== undefined) plan.min = query.min;
  if (query.max !== undefined) plan.max = query.max;
  if (query.limit !== undefined) plan.limit = query.limit;
  if (query.after !== undefined) plan.after = plannedCursor(query.after);
  return plan;
}

/** A cursor as the stores compare it: the time as computed_at is kept (Date.parse of the timestamp). */
function plannedCursor(after: ResultCursor): { at: number; id: string } {
  const at = typeof after.timestamp === 'string' ? Date.parse(after.timestamp) : Number.NaN;
  if (!Number.isFinite(at) || typeof after.id !== 'string') throw new Error("result query: after must be a result's timestamp (ISO 8601) and id");
  return { at, id: after.id };
}

/** How an SQL store writes a bound value and a bound list. */
export interface SqlBinding {
  /** The placeholder of the n-th bound value (1-based). */
  value(n: number): string;
  /** The condition that `column` is one of the list bound as the n-th value. */
  oneOf(column: string, n: number): string;
  /** A list as it is bound. */
  list(values: readonly string[]): unknown;
}

/** SQLite: a list is one JSON array, read with json_each (no limit on its length, one statement per filter shape). */
export const SQLITE_BINDING: SqlBinding = {
  value: () => '?',
  oneOf: (column) => `${column} IN (SELECT value FROM json_each(?))`,
  list: (values) => JSON.stringify(values),
};

/** PostgreSQL: a list is one text[] parameter. */
export const POSTGRES_BINDING: SqlBinding = {
  value: (n) => `$${n}`,
  oneOf: (column, n) => `${column} = ANY($${n})`,
  list: (values) => [...values],
};

/** The WHERE clause (over `metric_results r`) and values of a planned query; '' when nothing is filtered. */
export function resultFilter(plan: PlannedResultQuery, sql: SqlBinding): { where: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const bind = (value: unknown) => {
    params.push(value);
    return params.length;
  };
  const compare = (column: string, op: string, value: number | undefined) => {
    if (value !== undefined) clauses.push(`${column} ${op} ${sql.value(bind(value))}`);
  };
  compare('r.computed_at', '>=', plan.from);
  compare('r.computed_at', '<=', plan.to);
  if (plan.after) {
    // Written with a bound on the time alone first, which the time indexes seek; the id decides only within a tie.
    const [at, again, id] = [bind(plan.after.at), bind(plan.after.at), bind(plan.after.id)];
    clauses.push(`r.computed_at <= ${sql.value(at)} AND (r.computed_at < ${sql.value(again)} OR r.id > ${sql.value(id)})`);
  }
  if (plan.sessionIds) clauses.push(sql.oneOf('r.session_id', bind(sql.list(plan.sessionIds))));
  if (plan.metrics) {
    const { names, metricIds } = plan.metrics;
    const either = [
      ...(names.length > 0 ? [sql.oneOf('r.name', bind(sql.list(names)))] : []),
      ...(metricIds.length > 0 ? [sql.oneOf('r.of_metric_type', bind(sql.list(metricIds)))] : []),
    ];
    clauses.push(either.length === 1 ? either[0]! : `(${either.join(' OR ')})`);
  }
  if (plan.levels) clauses.push(sql.oneOf('r.measures_level', bind(sql.list(plan.levels))));
  compare('r.result', '>=', plan.min);
  compare('r.result', '<=', plan.max);
  return { where: clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '', params };
}
