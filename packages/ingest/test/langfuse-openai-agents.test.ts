/**
 * openai-agents traced through OpenInference into Langfuse, exported as `{trace, observations}` (the shape of the
 * Langfuse repository's framework-trace export of it: a root AGENT observation `Agent workflow` around the agent
 * `Hello world`, two GENERATIONs and a TOOL; the span attributes under `metadata.attributes`, or none at all). The
 * workflow is the MAS call, the agent the one agent. Values as in that export.
 */
import { describe, expect, it } from 'vitest';
import { readSessions } from '../src/index.js';
import { summarise, tempFiles } from './helpers.js';

const write = tempFiles('mce-langfuse-oa');
const TRACE = 'fee618f96dc31e0ca38b2f7b26eb8b29';
const SCOPE = { name: 'openinference.instrumentation.openai_agents', version: '1.3.0', attributes: {} };
const meta = (attributes: Record<string, unknown>) => JSON.stringify({ attributes, resourceAttributes: { 'service.name': 'unknown_service' }, scope: SCOPE });

const obs = (id: string, parent: string | null, type: string, name: string, start: string, end: string, extra: Record<string, unknown> = {}) => ({
  id, traceId: TRACE, parentObservationId: parent, type, name, startTime: `2025-09-30T09:0${start}Z`, endTime: `2025-09-30T09:0${end}Z`,
  level: 'DEFAULT', statusMessage: null, input: null, output: null, model: null, usageDetails: {}, costDetails: {}, metadata: '{}', ...extra,
});
const generation = (id: string, start: string, end: string, input: number, output: number, cost: { input: number; output: number; total: number }) =>
  obs(id, 'd950b668796240b5', 'GENERATION', 'response', start, end, { model: 'gpt-4.1-2025-04-14', usageDetails: { output, input, total: input + output, 'prompt_details.cache_read': 0 }, costDetails: cost });

/** The export, each observation's OTel attributes kept (`withOtel`) or dropped. */
function exported(withOtel: boolean) {
  const m = (attributes: Record<string, unknown>) => (withOtel ? { metadata: meta(attributes) } : {});
  return {
    trace: { id: TRACE, name: 'Agent workflow', timestamp: '2025-09-30T09:03:59.962Z', sessionId: null, userId: null, environment: 'default' },
    observations: [
      obs('e5a76f27f51ad40e', null, 'AGENT', 'Agent workflow', '3:59.962', '4:02.152', m({ 'openinference.span.kind': 'AGENT' })),
      obs('d950b668796240b5', 'e5a76f27f51ad40e', 'AGENT', 'Hello world', '3:59.962', '4:02.152', m({ 'llm.system': 'openai', 'graph.node.id': 'Hello world', 'openinference.span.kind': 'AGENT' })),
      { ...generation('98870087af69bf06', '3:59.963', '4:00.999', 55, 15, { output: 0.00012, input: 0.00011, total: 0.00023 }), ...m({ 'openinference.span.kind': 'LLM', 'llm.model_name': 'gpt-4.1-2025-04-14', 'llm.token_count.prompt': '55', 'llm.token_count.completion': '15', 'llm.token_count.total': '70' }) },
      obs('5b99c3e3411ed17b', 'd950b668796240b5', 'TOOL', 'get_weather', '4:01.000', '4:01.000', m({ 'openinference.span.kind': 'TOOL', 'tool.name': 'get_weather' })),
      { ...generation('90d94774e8e3724d', '4:01.001', '4:02.151', 85, 29, { output: 0.000232, input: 0.00017, total: 0.000402 }), ...m({ 'openinference.span.kind': 'LLM', 'llm.model_name': 'gpt-4.1-2025-04-14', 'llm.token_count.prompt': '85', 'llm.token_count.completion': '29', 'llm.token_count.total': '114' }) },
    ],
  };
}

describe('Langfuse export of openai-agents (OpenInference)', () => {
  for (const withOtel of [true, false]) {
    it(`the root "Agent workflow" observation typed AGENT is the MAS call, not an agent (span attributes ${withOtel ? 'kept' : 'absent'})`, async () => {
      const { sessions, warnings } = await readSessions(write(JSON.stringify(exported(withOtel))));
      expect(warnings).toEqual([]);
      expect(sessions).toHaveLength(1);
      const s = sessions[0]!;
      expect(s.masCalls.map((m) => [m.id, m.name])).toEqual([['e5a76f27f51ad40e', 'Agent workflow']]);
      expect(summarise(s)).toMatchObject({
        counts: { MASCall: 1, AgentCall: 1, TaskCall: 0, LLMCall: 2, ToolCall: 1 },
        tokens: { input: 140, output: 44, total: 184 },
        agents: ['Hello world'],
        tools: ['get_weather'],
        llmAgents: ['Hello world', 'Hello world'],
        toolAgents: ['Hello world'],
      });
      expect(s.agentCalls[0]!.masCallId).toBe('e5a76f27f51ad40e');
    });
  }

  it('a root AGENT observation of another name, without span attributes, stays an agent (an app\'s own agent at the root)', async () => {
    const doc = exported(false);
    doc.trace.name = 'planner';
    doc.observations[0] = { ...doc.observations[0]!, name: 'planner' };
    const s = (await readSessions(write(JSON.stringify(doc)))).sessions[0]!;
    expect(s.agentCalls.map((a) => a.agentName)).toEqual(['planner', 'Hello world']);
  });
});
