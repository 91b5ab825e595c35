import type { MetricMetadata, MetricOutcome, MetricValue } from '../contracts/metric.js';
import { isSkip, isTransientError } from '../contracts/metric.js';
import type { EvaluationUsage } from '../ontology/metric-result.js';
import type { Element, OntologyLevel } from '../ontology/types.js';
import { setUnstoredResultIds, type SessionComputation, type ResultRecord } from './output.js';
import { resultIdAt, resultIdBlock, resultIdHead } from './result-id.js';

/** What a metric produced for one element: its outcome, or the error it threw. */
export type ElementOutcome = MetricOutcome | Error;

/**
 * Turns one task's outcomes into the records of `out`, the task's own empty bucket: `out.results` becomes the new
 * list. A thrown error, a non-finite value or a malformed outcome becomes a FailedRecord (never a score); `skip()`
 * becomes a SkippedRecord. `idTails`: the elements' `resultIdTails`, if already made (they are the same for every
 * task on these elements).
 */
export function buildRecords(
  metadata: MetricMetadata,
  level: OntologyLevel,
  elements: readonly Element[],
  outcomes: readonly ElementOutcome[],
  idPrefix: string,
  timestamp: string,
  out: SessionComputation,
  idTails?: Uint8Array,
  /** Check that each `details` is JSON (a provider that does not vouch for its metrics' details). */
  checkDetails = false,
): void {
  const { name, provider, unit } = metadata;
  // Written into an array of the final size (at most one record per element, trimmed at the end): pushed one by one,
  // a 50,000-record list would be reallocated some twenty times.
  const made = new Array<ResultRecord>(elements.length);
  let count = 0;
  const ids = resultIdBlock(resultIdHead(idPrefix), elements, idTails);
  // The ids of the elements that got no result (see unstoredResultIds); none, nearly always.
  let unstored: string[] | undefined;
  const noResult = (i: number) => (unstored ??= []).push(resultIdAt(ids, i));
  for (let i = 0; i < elements.length; i++) {
    const measures = (elements[i] as Element).id;
    const outcome = outcomes[i];
    // Each property is read once: outcomes come in many shapes, so every read is a slow (megamorphic) one.
    let value: unknown, reasoning: unknown, details: unknown, evaluation: unknown;
    let plain = false;
    // An outcome is the metric's object: a getter on it may throw, and that is this element's failure, not the run's.
    try {
      if (typeof outcome === 'object' && outcome !== null && !(outcome instanceof Error)) {
        const candidate = outcome as Partial<MetricValue> & { skipped?: unknown };
        value = candidate.value;
        reasoning = candidate.reasoning;
        details = candidate.details;
        evaluation = candidate.evaluation;
        plain =
          typeof value === 'number' &&
          Number.isFinite(value) &&
          evaluation === undefined &&
          candidate.skipped === undefined && // a value beside a skip reason is a skip (as invalidOutcome reads it)
          (reasoning === undefined || typeof reasoning === 'string') &&
          (details === undefined || (typeof details === 'object' && details !== null));
      }
      if (plain && checkDetails && details !== undefined) {
        const problem = unserialisable(details);
        if (problem !== undefined) {
          out.failed.push({ name, level, measures, error: problem });
          noResult(i);
          continue;
        }
      }
      if (!plain) {
        const problem = invalidOutcome(outcome);
        if (problem !== undefined) {
          out.failed.push(isTransientError(outcome) ? { name, level, measures, error: problem, transient: true } : { name, level, measures, error: problem });
          noResult(i);
          continue;
        }
        // Valid (checked just above), so a defined `skipped` is a string reason.
        const valid = outcome as MetricOutcome;
        if (isSkip(valid)) {
          out.skipped.push({ name, level, measures, reason: valid.skipped });
          noResult(i);
          continue;
        }
      }
    } catch (error) {
      out.failed.push({ name, level, measures, error: `invalid outcome: reading it threw: ${errorText(toError(error))}` });
      noResult(i);
      continue;
    }
    const usage = evaluation as EvaluationUsage | undefined;
    made[count++] = newRecord(
      resultIdAt(ids, i),
      name,
      provider,
      level,
      measures,
      value as number,
      unit,
      reasoning === undefined ? '' : flat(reasoning as string),
      usage ? usage.model : null,
      usage ? usage.promptTokens : 0,
      usage ? usage.completionTokens : 0,
      usage ? usage.totalTokens : 0,
      usage ? usage.costUsd : 0,
      timestamp,
      details as Record<string, unknown> | undefined,
    );
  }
  made.length = count;
  out.results = made;
  if (unstored) setUnstoredResultIds(out, unstored);
}

/** Why `details` cannot be written as JSON (a BigInt, a cycle, a throwing toJSON), or undefined when it can. */
function unserialisable(details: unknown): string | undefined {
  try {
    JSON.stringify(details);
    return undefined;
  } catch (error) {
    return `invalid outcome: details cannot be written as JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * `text`, flattened in place: a template literal is a tree of pieces (V8 cons strings, 32 bytes per node) that would
 * live as long as the result; reading a character makes V8 copy it into one flat string, and the garbage collector
 * then drops the pieces (a 60-character reasoning: about 105 bytes instead of 185). Free for a string already flat.
 */
function flat(text: string): string {
  text.charCodeAt(0);
  return text;
}

/**
 * One record, written as one of two literals (with or without `details`): a property added after the literal would
 * cost an extra out-of-object property array per record that has details.
 */
function newRecord(
  id: string,
  name: string,
  provider: string,
  level: OntologyLevel,
  measures: string,
  result: number,
  unit: string,
  reasoning: string,
  evaluationModel: string | null,
  evaluationPromptTokenCount: number,
  evaluationCompletionTokenCount: number,
  evaluationTotalTokenCount: number,
  evaluationCost: number,
  timestamp: string,
  details: Record<string, unknown> | undefined,
): ResultRecord {
  if (details === undefined) {
    return {
      id,
      name,
      provider,
      level,
      measures,
      result,
      unit,
      reasoning,
      evaluationModel,
      evaluationPromptTokenCount,
      evaluationCompletionTokenCount,
      evaluationTotalTokenCount,
      evaluationCost,
      timestamp,
    };
  }
  return {
    id,
    name,
    provider,
    level,
    measures,
    result,
    unit,
    reasoning,
    evaluationModel,
    evaluationPromptTokenCount,
    evaluationCompletionTokenCount,
    evaluationTotalTokenCount,
    evaluationCost,
    timestamp,
    details,
  };
}

/** Why an outcome cannot become a result or a skip, or undefined when it can. */
export function invalidOutcome(outcome: ElementOutcome | undefined): string | undefined {
  if (outcome instanceof Error) return errorText(outcome);
  if (outcome === null || typeof outcome !== 'object') return `invalid outcome: ${describe(outcome)}`;
  const { skipped } = outcome as { skipped?: unknown };
  if (skipped !== undefined) return typeof skipped === 'string' ? undefined : 'invalid outcome: skip reason must be a string';
  const { value, reasoning, details, evaluation } = outcome as Partial<MetricValue>;
  if (typeof value !== 'number') return `invalid outcome: value is ${describe(value)}, not a number`;
  if (!Number.isFinite(value)) return `non-finite value: ${value}`;
  if (reasoning !== undefined && typeof reasoning !== 'string') return 'invalid outcome: reasoning must be a string';
  if (details !== undefined && (details === null || typeof details !== 'object')) {
    return 'invalid outcome: details must be an object';
  }
  if (evaluation !== undefined) return invalidEvaluation(evaluation);
  return undefined;
}

function invalidEvaluation(e: EvaluationUsage): string | undefined {
  if (e === null || typeof e !== 'object' || typeof e.model !== 'string') return 'invalid evaluation usage: no model';
  for (const field of ['promptTokens', 'completionTokens', 'totalTokens'] as const) {
    const n = e[field];
    if (!Number.isInteger(n) || n < 0) return `invalid evaluation usage: ${field} is ${describe(n)}`;
  }
  if (typeof e.costUsd !== 'number' || !Number.isFinite(e.costUsd) || e.costUsd < 0) {
    return `invalid evaluation usage: costUsd is ${describe(e.costUsd)}`;
  }
  return undefined;
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'number') return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    try {
      return String(value);
    } catch {
      return '(a value that cannot be printed)'; // e.g. an object whose toString throws
    }
  }
}

/** `TypeError: …` keeps the kind of a runtime fault; a plain Error shows its message only. */
export function errorText(error: Error): string {
  if (!error.message) return error.name;
  return error.name && error.name !== 'Error' ? `${error.name}: ${error.message}` : error.message;
}

export function toError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(typeof thrown === 'string' ? thrown : describe(thrown));
}
