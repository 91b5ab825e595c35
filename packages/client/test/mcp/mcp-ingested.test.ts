/**
 * The MCP metrics on ingested traces: the same multi-agent session written in three dialects gives the same MCP
 * interaction and the same system_one values.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { MetricValue, Session } from '@mce/core';
import {
  LocalSystemOne,
  SYSTEM_ONE_QUESTIONS,
  createMCPTaskCompletion,
  createMCPUse,
  createMultiTurnMCPUse,
  sessionConversation,
  wholeInteraction,
} from '@mce/provider-native';
import { readSessions } from '../../../ingest/src/index.js';

const file = (name: string) => fileURLToPath(new URL(`../../../ingest/test/data/multi-agent/${name}`, import.meta.url));
const DIALECTS = ['genai.jsonl', 'genai-legacy.jsonl', 'openinference.jsonl'];
const lookup = { get: () => undefined, all: () => [] };
const deps = { env: {}, persistedEvalMode: () => undefined };

async function values(session: Session) {
  const out: Record<string, number> = {};
  for (const metric of [createMCPUse(deps), createMultiTurnMCPUse(deps), createMCPTaskCompletion(deps)]) {
    const r = (await metric.compute(session, { session, level: 'Session', options: { eval_mode: 'system_one' }, results: lookup })) as MetricValue;
    out[metric.metadata.name] = r.value;
  }
  for (const agent of session.agentCalls) {
    const r = (await createMCPUse(deps).compute(agent, { session, level: 'AgentCall', options: { eval_mode: 'system_one' }, results: lookup })) as MetricValue;
    out[`MCPUse/${agent.agentName}`] = r.value;
  }
  return out;
}

describe('MCP metrics on ingested sessions', () => {
  it('read the MCP calls and inventory of the trace, identically in every dialect', async () => {
    const results = [];
    for (const d of DIALECTS) {
      const { sessions } = await readSessions(file(d));
      const session = sessions[0]!;
      const turns = sessionConversation(session).turns;
      expect(turns).toHaveLength(1);
      expect(turns[0]!.request).toBe('Book me a flight from Paris to New York on 1 December.');
      expect(turns[0]!.calls.map((c) => [c.server, c.name, c.error])).toEqual([
        ['travel-mcp', 'search_flights', undefined],
        ['travel-mcp', 'book_flight', 'SeatUnavailable: no seats left on AF006'],
      ]);
      const v = await values(session);
      // The session-level MCPUse is the local model's weighted mean on the session's interaction (a lower answer
      // weighing e^(−3·value) more).
      const local = new LocalSystemOne().answerSync({ interaction: wholeInteraction(sessionConversation(session)), questions: SYSTEM_ONE_QUESTIONS });
      const w = local.answers.map((a) => Math.exp(-3 * a.value));
      expect(v.MCPUse).toBeCloseTo(local.answers.reduce((s, a, i) => s + w[i]! * a.value, 0) / w.reduce((x, y) => x + y, 0), 12);
      results.push(v);
    }
    expect(results[1]).toEqual(results[0]);
    expect(results[2]).toEqual(results[0]);
    expect(Object.keys(results[0]!).sort()).toEqual(['MCPTaskCompletion', 'MCPUse', 'MCPUse/flight_agent', 'MCPUse/notifier', 'MCPUse/triage', 'MultiTurnMCPUse']);
    // The booking failed (no seat): the task is judged not done.
    expect(results[0]!.MCPTaskCompletion).toBeLessThan(0.5);
  });
});
