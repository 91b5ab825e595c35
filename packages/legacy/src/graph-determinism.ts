/**
 * The old population metric GraphDeterminismScore: per session, the directed edges between consecutive agent and tool
 * calls (by name, in start-time order); the value is the mean, over every pair of sessions, of the size of the
 * symmetric difference of their edge sets. Higher means less deterministic. It needs two sessions: with fewer it is
 * a failed metric (the old engine returned -1 with success false).
 */
import type { Session } from '@mce/core';
import type { LegacyFailedMetric, LegacyMetricResult } from './response.js';
import { appNameOf } from './response.js';

/** The edge set of one session: "A -> B" for each consecutive pair of agent/tool call names. */
export function sessionEdges(session: Session): Set<string> {
  const steps = [...session.agentCalls.map((a) => ({ t: a.startTime, name: a.agentName })), ...session.toolCalls.map((c) => ({ t: c.startTime, name: c.toolName }))];
  // Stable: agent calls before tool calls of the same start time, as the two lists are merged.
  steps.sort((a, b) => a.t - b.t);
  const edges = new Set<string>();
  for (let i = 1; i < steps.length; i++) edges.add(`${steps[i - 1]!.name} -> ${steps[i]!.name}`);
  return edges;
}

function symmetricDifference(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let n = 0;
  for (const e of a) if (!b.has(e)) n += 1;
  for (const e of b) if (!a.has(e)) n += 1;
  return n;
}

export function graphDeterminism(sessions: readonly Session[], metricName: string): { result: LegacyMetricResult } | { failed: LegacyFailedMetric } {
  const ids = sessions.map((s) => s.id);
  const appName = appNameOf(sessions[0]);
  if (sessions.length < 2) {
    return {
      failed: {
        metric_name: metricName,
        aggregation_level: 'population',
        error_message: `${metricName} compares sessions with one another: it needs at least 2 sessions, got ${sessions.length}`,
        session_id: ids,
        span_id: [],
        app_name: appName,
        metadata: {},
      },
    };
  }
  const edgeSets = sessions.map(sessionEdges);
  let total = 0;
  let pairs = 0;
  for (let i = 0; i < edgeSets.length; i++) {
    for (let j = i + 1; j < edgeSets.length; j++) {
      total += symmetricDifference(edgeSets[i]!, edgeSets[j]!);
      pairs += 1;
    }
  }
  const value = total / pairs;
  return {
    result: {
      metric_name: metricName,
      value,
      aggregation_level: 'population',
      category: 'application',
      app_name: appName,
      agent_id: null,
      description: 'Mean size of the symmetric difference of the sessions\' agent/tool edge sets over every pair of sessions',
      reasoning: `${pairs} pair(s) of ${sessions.length} sessions: mean edit distance ${value}.`,
      unit: 'average_edit_distance',
      span_id: [],
      session_id: ids,
      source: 'native',
      entities_involved: [],
      edges_involved: [...new Set(edgeSets.flatMap((s) => [...s]))],
      success: true,
      metadata: { average_edit_distance: value, pairs, sessions: sessions.length },
      label: null,
      error_message: null,
      from_cache: false,
    },
  };
}
