/**
 * mce's computations written as the telemetry-hub `/compute_metrics` answer: `metrics` and `results` with
 * span/session/agent/population lists of MetricResult dicts, `failed_metrics`, `unmatched_spans` when asked, and the
 * grouped ("holistic") form under `reorg_by_entity`. The value shapes the old clients read are restored here (a count
 * per transition for the interaction metrics, the tool-error metadata); docs/legacy.md lists each difference.
 */
import type { FailedRecord, ResultRecord, Session, SkippedRecord, SessionComputation } from '@mce/core';

export type LegacyLevel = 'span' | 'session' | 'agent' | 'population';

/** The old `MetricResult` dataclass, as `asdict` wrote it. */
export interface LegacyMetricResult {
  metric_name: string;
  value: number | string | Record<string, unknown>;
  aggregation_level: LegacyLevel;
  category: string;
  app_name: string;
  agent_id: string | null;
  description: string;
  reasoning: string;
  unit: string;
  span_id: string[];
  session_id: string[];
  source: string;
  entities_involved: string[];
  edges_involved: string[];
  success: boolean;
  metadata: Record<string, unknown>;
  label: string | null;
  error_message: string | null;
  from_cache: boolean;
}

export interface LegacyFailedMetric {
  metric_name: string;
  aggregation_level: LegacyLevel | 'unknown';
  error_message: string;
  session_id: string[];
  span_id: string[];
  app_name: string | string[];
  metadata: Record<string, unknown>;
}

export interface LegacyUnmatchedSpan {
  metric_name: string;
  aggregation_level: LegacyLevel;
  entity_id: string;
  entity_type: string;
  session_id: string;
  skip_reason: string;
  skip_category: 'invalid_span' | 'no_matching_metrics' | 'requirement_not_met';
  details: Record<string, unknown>;
}

export interface LegacyResults {
  span_metrics: LegacyMetricResult[];
  session_metrics: LegacyMetricResult[];
  agent_metrics: LegacyMetricResult[];
  population_metrics: LegacyMetricResult[];
  failed_metrics: LegacyFailedMetric[];
  unmatched_spans?: LegacyUnmatchedSpan[];
}

/** What the builder needs of each computed session and how the request named its metrics. */
export interface BuildInput {
  computations: readonly SessionComputation[];
  sessions: ReadonlyMap<string, Session>;
  /** mce metric name → the name the request used (`CyclesCount` → `Cycles`). */
  requestedAs: ReadonlyMap<string, string>;
  population: LegacyMetricResult[];
  /** Failures no session computation has: names that resolved to nothing, population metrics that could not run. */
  failed: LegacyFailedMetric[];
}

const LEVEL_OF: Record<string, LegacyLevel | undefined> = { Session: 'session', AgentCall: 'agent', LLMCall: 'span', ToolCall: 'span' };
const ENTITY_TYPE: Record<string, string> = { Session: 'session', AgentCall: 'agent', LLMCall: 'llm', ToolCall: 'tool', MASCall: 'workflow', TaskCall: 'task' };

/** The flat form of `results`, `unmatched_spans` included (the caller drops it unless asked). */
export function buildResults(input: BuildInput): LegacyResults {
  const unmatched: LegacyUnmatchedSpan[] = [];
  const out: LegacyResults = { span_metrics: [], session_metrics: [], agent_metrics: [], population_metrics: [...input.population], failed_metrics: [], unmatched_spans: unmatched };
  for (const computation of input.computations) {
    const session = input.sessions.get(computation.sessionId);
    for (const record of computation.results) {
      const level = LEVEL_OF[record.level];
      if (!level) continue;
      const result = legacyResult(record, level, computation.sessionId, session, input.requestedAs);
      (level === 'span' ? out.span_metrics : level === 'agent' ? out.agent_metrics : out.session_metrics).push(result);
    }
    for (const failed of computation.failed) out.failed_metrics.push(legacyFailure(failed, computation.sessionId, session, input.requestedAs));
    for (const skipped of computation.skipped) unmatched.push(legacyUnmatched(skipped, computation.sessionId, input.requestedAs));
  }
  out.failed_metrics.push(...input.failed);
  return out;
}

export function appNameOf(session: Session | undefined): string {
  return session?.appName ?? session?.serviceName ?? '';
}

function legacyResult(record: ResultRecord, level: LegacyLevel, sessionId: string, session: Session | undefined, requestedAs: ReadonlyMap<string, string>): LegacyMetricResult {
  const shaped = shapeOf(record, session, level);
  const agent = level === 'agent' ? session?.agentCalls.find((a) => a.id === record.measures) : undefined;
  return {
    metric_name: requestedAs.get(record.name) ?? record.name,
    value: shaped.value,
    aggregation_level: level,
    category: level === 'session' ? 'application' : 'agent',
    app_name: appNameOf(session),
    agent_id: agent?.agentName ?? null,
    description: '',
    reasoning: record.reasoning,
    unit: shaped.unit,
    span_id: level === 'session' ? shaped.spanIds : [record.measures],
    session_id: [sessionId],
    source: record.provider === 'mce' ? 'native' : record.provider,
    entities_involved: level === 'span' ? entitiesOf(record, session) : [],
    edges_involved: [],
    success: true,
    metadata: shaped.metadata,
    label: null,
    error_message: null,
    from_cache: record.details?.replayed === true,
  };
}

interface Shaped {
  value: LegacyMetricResult['value'];
  unit: string;
  spanIds: string[];
  metadata: Record<string, unknown>;
}

/** The old value shape of the metrics whose clients read more than a number. */
function shapeOf(record: ResultRecord, session: Session | undefined, level: LegacyLevel): Shaped {
  const details = record.details ?? {};
  const plain: Shaped = { value: record.result, unit: record.unit, spanIds: [], metadata: { ...details } };
  switch (record.name) {
    case 'AgentToAgentInteractions': {
      const counts = (details.transitions ?? {}) as Record<string, number>;
      const sequence = agentTransitionSequence(session);
      return { value: counts, unit: 'transitions', spanIds: session?.agentCalls.map((a) => a.id) ?? [], metadata: { total_transitions: record.result, unique_transitions: Object.keys(counts).length, all_transitions: sequence } };
    }
    case 'AgentToToolInteractions': {
      const counts = (details.interactions ?? {}) as Record<string, number>;
      const value = Object.fromEntries(Object.entries(counts).map(([key, n]) => [oldToolPairKey(key), n]));
      return { value, unit: 'interactions', spanIds: session?.toolCalls.map((t) => t.id) ?? [], metadata: { total_tool_calls: record.result } };
    }
    case 'ToolErrorRate': {
      // At the agent level, the tool calls of that agent call only.
      const tools = (session?.toolCalls ?? []).filter((t) => level !== 'agent' || t.agentCallId === record.measures);
      const errored = tools.filter((t) => t.status === 'error' || t.error !== undefined).map((t) => t.id);
      return { value: record.result, unit: '%', spanIds: errored, metadata: { total_tool_calls: details.total ?? tools.length, total_tool_errors: details.errored ?? errored.length, all_tool_span_ids: tools.map((t) => t.id) } };
    }
    case 'CyclesCount':
      return { value: record.result, unit: 'cycles', spanIds: [], metadata: { ...details } };
    default:
      return plain;
  }
}

/** `(agent) -> (tool)`, as mce writes it, in the old spelling `(Agent: agent) -> (Tool: tool)`. */
export function oldToolPairKey(key: string): string {
  const match = /^\((.*)\) -> \((.*)\)$/.exec(key);
  return match ? `(Agent: ${match[1]}) -> (Tool: ${match[2]})` : key;
}

/** Every transition "A -> B" in order, as the old metadata `all_transitions` listed them. */
function agentTransitionSequence(session: Session | undefined): string[] {
  if (!session) return [];
  const agents = [...session.agentCalls].sort((a, b) => a.startTime - b.startTime);
  const out: string[] = [];
  for (let i = 1; i < agents.length; i++) {
    const from = agents[i - 1]!.agentName;
    const to = agents[i]!.agentName;
    if (from !== to) out.push(`${from} -> ${to}`);
  }
  return out;
}

function entitiesOf(record: ResultRecord, session: Session | undefined): string[] {
  if (record.level === 'ToolCall') {
    const tool = session?.toolCalls.find((t) => t.id === record.measures);
    return tool ? [tool.toolName] : [];
  }
  return [];
}

function legacyFailure(failed: FailedRecord, sessionId: string, session: Session | undefined, requestedAs: ReadonlyMap<string, string>): LegacyFailedMetric {
  const level = LEVEL_OF[failed.level] ?? 'session';
  return {
    metric_name: requestedAs.get(failed.name) ?? failed.name,
    aggregation_level: level,
    error_message: failed.error,
    session_id: [sessionId],
    span_id: level === 'span' || level === 'agent' ? [failed.measures] : [],
    app_name: appNameOf(session),
    metadata: failed.transient ? { transient: true } : {},
  };
}

function legacyUnmatched(skipped: SkippedRecord, sessionId: string, requestedAs: ReadonlyMap<string, string>): LegacyUnmatchedSpan {
  return {
    metric_name: requestedAs.get(skipped.name) ?? skipped.name,
    aggregation_level: LEVEL_OF[skipped.level] ?? 'session',
    entity_id: skipped.measures,
    entity_type: ENTITY_TYPE[skipped.level] ?? skipped.level,
    session_id: sessionId,
    skip_reason: skipped.reason,
    skip_category: 'requirement_not_met',
    details: {},
  };
}

/** A group of the holistic payload: one entity and every metric evaluated, failed or skipped for it. */
export interface EntityGroup {
  [key: string]: unknown;
  evaluated_metrics: LegacyMetricResult[];
  failed_metrics: LegacyFailedMetric[];
  skipped_metrics: LegacyUnmatchedSpan[];
}

/** The `reorg_by_entity` form: each list becomes a list of groups, one per span, session, agent, or the population. */
export function reorganiseByEntity(results: LegacyResults, unmatched: readonly LegacyUnmatchedSpan[]): Record<string, EntityGroup[] | LegacyFailedMetric[]> {
  const groups = new Map<string, EntityGroup>();
  const groupOf = (list: string, id: string, head: () => Record<string, unknown>): EntityGroup => {
    const key = `${list}\u0000${id}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { ...head(), evaluated_metrics: [], failed_metrics: [], skipped_metrics: [] }));
    return group;
  };
  const headOf = (level: LegacyLevel, r: { session_id: string[] | string; span_id?: string[]; agent_id?: string | null; app_name: string | string[] }) => {
    const sessionId = Array.isArray(r.session_id) ? (r.session_id[0] ?? '') : r.session_id;
    if (level === 'span') return { list: 'span', id: `${sessionId}/${r.span_id?.[0] ?? ''}`, head: () => ({ span_id: r.span_id?.[0] ?? '', session_id: sessionId, app_name: r.app_name }) };
    if (level === 'agent') return { list: 'agent', id: `${sessionId}/${r.span_id?.[0] ?? r.agent_id ?? ''}`, head: () => ({ agent_id: r.agent_id ?? r.span_id?.[0] ?? '', session_id: sessionId, app_name: r.app_name }) };
    if (level === 'population') return { list: 'population', id: 'all', head: () => ({ population_id: 'all', app_name: r.app_name }) };
    return { list: 'session', id: sessionId, head: () => ({ session_id: sessionId, app_name: r.app_name }) };
  };
  for (const r of [...results.span_metrics, ...results.session_metrics, ...results.agent_metrics, ...results.population_metrics]) {
    const { list, id, head } = headOf(r.aggregation_level, r);
    groupOf(list, id, head).evaluated_metrics.push(r);
  }
  const unplaced: LegacyFailedMetric[] = [];
  for (const f of results.failed_metrics) {
    if (f.aggregation_level === 'unknown' || f.session_id.length === 0) {
      unplaced.push(f);
      continue;
    }
    const { list, id, head } = headOf(f.aggregation_level, { ...f, agent_id: null });
    groupOf(list, id, head).failed_metrics.push(f);
  }
  for (const s of unmatched) {
    const { list, id, head } = headOf(s.aggregation_level, { session_id: s.session_id, span_id: [s.entity_id], agent_id: s.aggregation_level === 'agent' ? s.entity_id : null, app_name: '' });
    groupOf(list, id, head).skipped_metrics.push(s);
  }
  const listOf = (name: string) => [...groups.entries()].filter(([key]) => key.startsWith(`${name}\u0000`)).map(([, g]) => g);
  return {
    span_metrics: listOf('span'),
    session_metrics: listOf('session'),
    agent_metrics: listOf('agent'),
    population_metrics: listOf('population'),
    failed_metrics: unplaced,
  };
}
