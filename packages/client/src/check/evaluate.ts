/**
 * `mce check`'s verdicts: each configured threshold against one session's results at its level. A failed
 * computation of the metric is an error, never a pass and never a 0; a level the session has no element of is
 * skipped (nothing to hold the threshold to), as is a metric the engine skipped on every element.
 */
import { elementsAt, type FailedRecord, type ResultRecord, type Session, type SkippedRecord } from '@mce/core';
import { nativeProvider } from '@mce/provider-native';
import type { Threshold } from '../config/thresholds.js';
import { nearestRank } from '@mce/store';

export type CheckStatus = 'pass' | 'fail' | 'error' | 'skipped';

export interface CheckCase {
  sessionId: string;
  threshold: Threshold;
  status: CheckStatus;
  /** The value compared: the aggregate (mean, p95), or for `each` the one furthest past a bound (or nearest it). */
  value?: number;
  /** Results compared. */
  count: number;
  /** For `each`: the elements whose result is past a bound. */
  failing: Array<{ measures: string; value: number }>;
  message: string;
}

/** What is known of one session: its results and, when computed here, its failed and skipped metrics. */
export interface CheckInput {
  session: Session;
  results: readonly ResultRecord[];
  failed: readonly FailedRecord[];
  skipped: readonly SkippedRecord[];
  /** false for stored results: a store keeps neither failed nor skipped metrics. */
  outcomesKnown: boolean;
}

/**
 * Does a record of metric `name` from `provider` answer to the name a threshold was written with? A bare name is the
 * built-in metric; a plugin's is written `provider:name` (as it is selected), so the two never mix.
 */
export function namesMetric(written: string, name: string, provider: string = nativeProvider.name): boolean {
  return written === name ? provider === nativeProvider.name : written === `${provider}:${name}`;
}

export function evaluateSession(input: CheckInput, thresholds: readonly Threshold[]): CheckCase[] {
  return thresholds.map((t) => evaluateThreshold(input, t));
}

function evaluateThreshold(input: CheckInput, t: Threshold): CheckCase {
  const base = { sessionId: input.session.id, threshold: t, count: 0, failing: [] };
  const results = input.results.filter((r) => r.level === t.level && namesMetric(t.metric, r.name, r.provider));
  // Failed and skipped records carry no provider: matched by the name alone.
  const bare = t.metric.slice(t.metric.indexOf(':') + 1);
  const failed = input.failed.filter((r) => r.level === t.level && r.name === bare);
  const skipped = input.skipped.filter((r) => r.level === t.level && r.name === bare);
  const elements = elementsAt(input.session, t.level).length;
  if (failed.length > 0) {
    const more = failed.length > 1 ? ` (and ${failed.length - 1} more)` : '';
    return { ...base, status: 'error', message: `${t.metric} failed on ${t.level} ${failed[0]!.measures}: ${failed[0]!.error}${more}` };
  }
  if (elements === 0) return { ...base, status: 'skipped', message: `the session has no ${t.level}` };
  if (results.length === 0) {
    if (skipped.length > 0) return { ...base, status: 'skipped', message: `${t.metric} was skipped: ${skipped[0]!.reason}` };
    const where = input.outcomesKnown ? 'was not computed' : 'has no stored result';
    return { ...base, status: 'error', message: `${t.metric} ${where} at ${t.level} in this session` };
  }
  return t.per === 'each' ? compareEach(base, results, t) : compareAggregate(base, results, t);
}

const below = (t: Threshold, v: number) => t.min !== undefined && v < t.min;
const above = (t: Threshold, v: number) => t.max !== undefined && v > t.max;

function compareEach(base: Omit<CheckCase, 'status' | 'message'>, results: readonly ResultRecord[], t: Threshold): CheckCase {
  const failing = results.filter((r) => below(t, r.result) || above(t, r.result)).map((r) => ({ measures: r.measures, value: r.result }));
  const values = results.map((r) => r.result);
  const high = Math.max(...values);
  const low = Math.min(...values);
  // The value shown: the worst one past a bound, else the one nearest the bound that is set.
  const value = above(t, high) ? high : below(t, low) ? low : t.max !== undefined ? high : low;
  const status = failing.length > 0 ? 'fail' : 'pass';
  const message = status === 'pass'
    ? `${results.length} result${results.length === 1 ? '' : 's'} within ${bounds(t)}`
    : `${failing.length} of ${results.length} past ${bounds(t)} (worst ${value})`;
  return { ...base, count: results.length, failing, value, status, message };
}

function compareAggregate(base: Omit<CheckCase, 'status' | 'message'>, results: readonly ResultRecord[], t: Threshold): CheckCase {
  const values = results.map((r) => r.result).sort((a, b) => a - b);
  // p95 is nearest-rank, as the store's summaries compute it.
  const value = t.per === 'mean' ? values.reduce((s, v) => s + v, 0) / values.length : values[nearestRank(95, values.length) - 1]!;
  const status = below(t, value) || above(t, value) ? 'fail' : 'pass';
  const message = `${t.per} of ${values.length} result${values.length === 1 ? '' : 's'} is ${value}, ${status === 'pass' ? 'within' : 'past'} ${bounds(t)}`;
  return { ...base, count: values.length, value, status, message };
}

export function bounds(t: Threshold): string {
  if (t.min !== undefined && t.max !== undefined) return `[${t.min}, ${t.max}]`;
  return t.min !== undefined ? `min ${t.min}` : `max ${t.max}`;
}

export interface CheckTotals {
  checked: number;
  passed: number;
  failed: number;
  errors: number;
  skipped: number;
}

export function totals(cases: readonly CheckCase[]): CheckTotals {
  const n = (s: CheckStatus) => cases.filter((c) => c.status === s).length;
  return { checked: cases.length, passed: n('pass'), failed: n('fail'), errors: n('error'), skipped: n('skipped') };
}
