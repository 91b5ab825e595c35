/**
 * Attribution of a call to an agent call that is not its ancestor (attribution.ts): the checkpoint namespace, else the
 * agent name, and the agent's time window.
 */
import { describe, expect, it } from 'vitest';
import { AgentMatcher, checkpointNamespace } from '../src/attribution.js';

const NS = 'ioa_observe.association.properties.checkpoint_ns';
const LANGGRAPH_NS = 'ioa_observe.association.properties.langgraph_checkpoint_ns';

describe('agent attribution', () => {
  it('the checkpoint namespace is the part before the first "|", from either key; an empty one is none', () => {
    expect(checkpointNamespace({ attributes: { [NS]: 'researcher:14bd|tools:9a|x' } })).toBe('researcher:14bd');
    expect(checkpointNamespace({ attributes: { [LANGGRAPH_NS]: 'writer:1' } })).toBe('writer:1');
    expect(checkpointNamespace({ attributes: { [NS]: '', [LANGGRAPH_NS]: 'writer:1' } })).toBe('writer:1');
    expect(checkpointNamespace({ attributes: { [NS]: 3 } })).toBeUndefined();
  });

  it('a call matches an agent of its namespace whose window holds its start (ends included), a sub-namespace too', () => {
    const matcher = new AgentMatcher([{ id: 'a1', name: 'research', namespace: 'researcher:1', start: 10, end: 20 }]);
    const at = (ns: string, startTime: number) => matcher.match({ attributes: { [NS]: ns }, startTime });
    expect([at('researcher:1', 9), at('researcher:1', 10), at('researcher:1', 20), at('researcher:1', 21)]).toEqual([undefined, 'a1', 'a1', undefined]);
    expect(at('researcher:1|tools:7', 15)).toBe('a1');
    expect(at('researcher:2', 15)).toBeUndefined();
  });

  it('among several agents whose windows hold the start, the one that started last; of those that started together, the first given', () => {
    // Given in start order (the shorter first among equal starts), as the normaliser and the store give them.
    const matcher = new AgentMatcher([
      { id: 'a1', name: 'planner', start: 0, end: 100 },
      { id: 'a2', name: 'planner', start: 50, end: 80 },
      { id: 'a3', name: 'planner', start: 50, end: 200 },
    ]);
    const at = (startTime: number) => matcher.match({ attributes: { agent_id: 'planner' }, startTime });
    expect([0, 49, 50, 80, 81, 100, 200, 201].map(at)).toEqual(['a1', 'a1', 'a2', 'a2', 'a3', 'a3', 'a3', undefined]);
  });

  it('a namespace that matches no agent there falls back to the name; the name keys are read in order', () => {
    const matcher = new AgentMatcher([
      { id: 'w', name: 'writer', namespace: 'writer:1', start: 0, end: 100 },
      { id: 'r', name: 'reviewer', start: 0, end: 100 },
    ]);
    expect(matcher.match({ attributes: { [NS]: 'writer:2', agent_id: 'writer' }, startTime: 50 })).toBe('w');
    expect(matcher.match({ attributes: { [NS]: 'writer:2', 'gen_ai.agent.name': 'reviewer' }, startTime: 50 })).toBe('r');
    expect(matcher.match({ attributes: { agent_id: 'nobody', 'ioa_observe.workflow.name': 'reviewer', 'gen_ai.agent.name': 'writer' }, startTime: 50 })).toBe('r');
    expect(matcher.match({ attributes: { agent_id: 7, 'gen_ai.agent.name': 'writer' }, startTime: 50 })).toBe('w');
    // Never from time alone.
    expect(matcher.match({ attributes: {}, startTime: 50 })).toBeUndefined();
  });
});
