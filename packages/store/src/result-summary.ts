/**
 * A summary of stored results (`summarizeMetricResults`): per (Metric id, level measured), the count, mean, min, max,
 * percentiles, distinct sessions and first/last timestamp of the results a query matches, computed in the database.
 *
 * Percentiles are nearest-rank: of n values in ascending order, the p-th percentile is the value of 1-based rank
 * ceil(p·n/100), the smallest value such that at least p% of the values are at most it. It is always one of the values
 * (no interpolation), so every store gives the same number: the SQL stores rank with ROW_NUMBER() and compute the rank
 * in integer arithmetic; Neo4j's percentileDisc takes index ceil(p·n) − 1 in floating point, which for 0.5, 0.9 and
 * 0.95 is that rank for every n up to 2·10^7 (the Neo4j statement tests check it).
 */
import { ONTOLOGY_LEVELS, type MetricDefinition, type OntologyLevel } from '@mce/core';
import { joinedMetric } from './results.js';
import { resultFilter, type PlannedResultQuery, type SqlBinding } from './result-query.js';
import type { ResultSummary } from './types.js';

/** The percentiles of a summary row (`p50`, `p90`, `p95`). */
export const PERCENTILES = [50, 90, 95] as const;

/** The 1-based rank of the p-th percentile of n values (the SQL stores compute the same, in SQL). */
export const nearestRank = (p: number, n: number): number => Math.floor((p * n + 99) / 100);

/**
 * The statement of the SQL stores: each matching result ranked by value within its (Metric, level) group, then one
 * row per group, joined with its Metric. Double-quoted names keep their case in PostgreSQL.
 */
export function summaryStatement(plan: PlannedResultQuery, sql: SqlBinding): { text: string; values: unknown[] } {
  const { where, params } = resultFilter(plan, sql);
  const percentiles = PERCENTILES.map((p) => `MIN(CASE WHEN k = (${p} * n + 99) / 100 THEN value END) AS "p${p}"`).join(', ');
  const text = `SELECT m.id AS "m_id", m.name AS "m_name", m.computed_by AS "m_computedBy", m.unit AS "m_unit",
    m.value_range AS "m_valueRange", m.description AS "m_description", g.*
  FROM (
    SELECT metric_id, level AS "level", COUNT(*) AS "count", AVG(value) AS "mean", MIN(value) AS "min", MAX(value) AS "max",
      ${percentiles}, COUNT(DISTINCT session_id) AS "sessions", MIN(computed_at) AS "first", MAX(computed_at) AS "last"
    FROM (
      SELECT r.of_metric_type AS metric_id, r.measures_level AS level, r.result AS value, r.session_id, r.computed_at,
        ROW_NUMBER() OVER (PARTITION BY r.of_metric_type, r.measures_level ORDER BY r.result) AS k,
        COUNT(*) OVER (PARTITION BY r.of_metric_type, r.measures_level) AS n
      FROM metric_results r ${where}
    ) ranked
    GROUP BY metric_id, level
  ) g JOIN metrics m ON m.id = g.metric_id`;
  return { text, values: params };
}

/** A summary row of any store (numbers possibly as text or bigint strings, times as epoch ms) with its Metric. */
export function summaryOf(metric: MetricDefinition, row: Record<string, unknown>): ResultSummary {
  const n = (key: string) => Number(row[key]);
  return {
    metric,
    level: row.level as OntologyLevel,
    count: n('count'),
    mean: n('mean'),
    min: n('min'),
    max: n('max'),
    p50: n('p50'),
    p90: n('p90'),
    p95: n('p95'),
    sessions: n('sessions'),
    first: new Date(n('first')).toISOString(),
    last: new Date(n('last')).toISOString(),
  };
}

/** The rows of an SQL store's summary, in summary order. */
export const summariesFromRows = (rows: readonly Record<string, unknown>[]): ResultSummary[] =>
  inSummaryOrder(rows.map((row) => summaryOf(joinedMetric(row), row)));

/**
 * By Metric id (UTF-16 code units, the same in every store whatever the database's collation), then level in
 * ontology order. The rows are few (one per group), so they are sorted here.
 */
export function inSummaryOrder(rows: ResultSummary[]): ResultSummary[] {
  return rows.sort(
    (a, b) =>
      (a.metric.id < b.metric.id ? -1 : a.metric.id > b.metric.id ? 1 : 0) || ONTOLOGY_LEVELS.indexOf(a.level) - ONTOLOGY_LEVELS.indexOf(b.level),
  );
}
