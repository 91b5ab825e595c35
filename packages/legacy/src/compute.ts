/**
 * One `POST /compute_metrics`: resolve the old metric names, find the sessions, compute them through the MCEClient,
 * add the population metric, and answer in the old shape (writing the results back when asked).
 */
import type { OntologyLevel, Session } from '@mce/core';
import type { MCEClient } from '@mce/client';
import { graphDeterminism } from './graph-determinism.js';
import { resolveLegacyName, unknownMetricMessage } from './metric-names.js';
import type { LegacyRequest } from './request.js';
import { buildResults, reorganiseByEntity, type LegacyFailedMetric, type LegacyMetricResult, type LegacyResults } from './response.js';
import type { ResultSink, SessionSource } from './sources.js';

export interface LegacySettings {
  /** `PAGINATION_DEFAULT_MAX_SESSIONS`: sessions a batch takes at most (default 50). */
  maxSessions: number;
  /** `METRICS_CACHE_ENABLED`: write the results back whatever the request says (the old engine did). */
  alwaysWrite: boolean;
}

export const DEFAULT_SETTINGS: LegacySettings = { maxSessions: 50, alwaysWrite: false };

export interface LegacyDeps {
  client: MCEClient;
  source: SessionSource;
  sink: ResultSink;
  settings: LegacySettings;
}

export interface LegacyAnswer {
  metrics: string[];
  results: LegacyResults | Record<string, unknown>;
}

interface Resolved {
  /** The names as the request gave them, of every metric that resolved (the old `registry.list_metrics()`). */
  registered: string[];
  selection: Partial<Record<OntologyLevel, string[]>>;
  requestedAs: Map<string, string>;
  population: string[];
  failed: LegacyFailedMetric[];
}

const nameFailure = (name: string, error: string): LegacyFailedMetric => ({ metric_name: name, aggregation_level: 'unknown', session_id: [], span_id: [], app_name: [], error_message: error, metadata: {} });

/** The mce levels a request's computation levels stand for; span metrics (LLM and tool calls) always run. */
function wantedLevels(levels: readonly string[]): Set<OntologyLevel> {
  const wanted = new Set<OntologyLevel>(['LLMCall', 'ToolCall']);
  if (levels.includes('session')) wanted.add('Session');
  if (levels.includes('agent')) wanted.add('AgentCall');
  return wanted;
}

export function resolveMetrics(client: MCEClient, names: readonly string[], levels: readonly string[]): Resolved {
  const wanted = wantedLevels(levels);
  const selection: Partial<Record<OntologyLevel, string[]>> = {};
  const out: Resolved = { registered: [], selection, requestedAs: new Map(), population: [], failed: [] };
  // A name asked twice is computed once, as the old registry registered it once.
  for (const name of new Set(names)) {
    const target = resolveLegacyName(name);
    if (target.kind === 'unsupported') {
      out.failed.push(nameFailure(name, target.reason));
      continue;
    }
    if (target.kind === 'population') {
      out.population.push(name);
      out.registered.push(name);
      continue;
    }
    let entry;
    try {
      entry = client.engine.registry.get(target.name);
    } catch (error) {
      out.failed.push(nameFailure(name, (error as Error).message));
      continue;
    }
    if (!entry) {
      out.failed.push(nameFailure(name, unknownMetricMessage(name, client.engine.registry.unknownHint?.(target.name))));
      continue;
    }
    out.registered.push(name);
    // Two spellings of one metric (Cycles, CyclesCount): computed once, reported under the first.
    if (out.requestedAs.has(entry.metric.metadata.name)) continue;
    out.requestedAs.set(entry.metric.metadata.name, name);
    for (const level of entry.metric.metadata.levels) {
      if (wanted.has(level)) (selection[level] ??= []).push(entry.key);
    }
  }
  return out;
}

/** The session ids of the request: listed, or the batch's. */
async function sessionIdsOf(deps: LegacyDeps, request: LegacyRequest): Promise<string[]> {
  const s = request.selection;
  if (s.kind === 'ids') return s.sessionIds;
  return deps.source.listSessionIds({ start: s.start, end: s.end, ...(s.numSessions !== undefined ? { numSessions: s.numSessions } : {}), ...(s.appName !== undefined ? { appName: s.appName } : {}) }, deps.settings.maxSessions);
}

/** The population metrics over every session of the request (GraphDeterminismScore, under the name asked). */
function populationMetrics(sessions: readonly Session[], names: readonly string[]): { population: LegacyMetricResult[]; failed: LegacyFailedMetric[] } {
  const population: LegacyMetricResult[] = [];
  const failed: LegacyFailedMetric[] = [];
  for (const name of names) {
    const outcome = graphDeterminism(sessions, name);
    if ('result' in outcome) population.push(outcome.result);
    else failed.push(outcome.failed);
  }
  return { population, failed };
}

export async function computeLegacy(deps: LegacyDeps, request: LegacyRequest): Promise<LegacyAnswer> {
  const resolved = resolveMetrics(deps.client, request.metrics, request.options.computationLevels);
  const ids = await sessionIdsOf(deps, request);
  const { sessions, notFound } = ids.length > 0 ? await deps.source.loadSessions(ids) : { sessions: [], notFound: [] };
  const hasSelection = Object.values(resolved.selection).some((l) => l && l.length > 0);
  const computations = hasSelection && sessions.length > 0 ? await deps.client.compute(sessions, { metrics: resolved.selection }) : [];
  const { population, failed } = populationMetrics(sessions, resolved.population);
  failed.unshift(...resolved.failed);
  for (const id of notFound) failed.push({ ...nameFailure('ALL', `session ${id} was not found in the ${deps.source.name}`), aggregation_level: 'session', session_id: [id] });
  const byId = new Map<string, Session>(sessions.map((s) => [s.id, s]));
  const results = buildResults({ computations, sessions: byId, requestedAs: resolved.requestedAs, population, failed });
  if (request.options.writeToDb || deps.settings.alwaysWrite) {
    const unwritten = await deps.sink.write(results, computations);
    for (const u of unwritten) results.failed_metrics.push({ ...nameFailure(u.metricName, `computed, but not written back: ${u.error}`), aggregation_level: 'session', session_id: [u.sessionId] });
  }
  const unmatched = results.unmatched_spans ?? [];
  if (!request.options.includeUnmatchedSpans) delete results.unmatched_spans;
  return { metrics: resolved.registered, results: request.options.reorgByEntity ? reorganiseByEntity(results, unmatched) : results };
}
