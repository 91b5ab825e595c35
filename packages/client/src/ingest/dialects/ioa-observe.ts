/**
 * The `ioa_observe.*` keys of the AGNTCY observe SDK (the ClickHouse fixtures): `ioa_observe.span.kind`,
 * `ioa_observe.entity.*`, `ioa_observe.workflow.name`, `agent_id`.
 * Its `*.graph` spans that carry `gen_ai.ioa.graph` record the graph topology once; nothing runs under them,
 * so they are not MAS invocations.
 */
import type { Classification, Dialect } from './types.js';
import { unwrapEntityInput, unwrapEntityOutput } from './traceloop.js';

const KINDS: Record<string, Classification> = {
  workflow: { kind: 'mas' },
  graph: { kind: 'mas' },
  agent: { kind: 'agent' },
  task: { kind: 'task' },
  tool: { kind: 'tool' },
};

export const ioaObserve: Dialect = {
  name: 'ioa-observe',
  classify(span) {
    const k = span.attributes['ioa_observe.span.kind'];
    if (typeof k !== 'string') return undefined;
    if (k === 'graph' && span.attributes['gen_ai.ioa.graph'] !== undefined) return { kind: 'other' };
    return Object.hasOwn(KINDS, k) ? KINDS[k] : undefined; // not `constructor` or `__proto__` of a plain object
  },
  fields: {
    agentName: ['agent_id', 'ioa_observe.entity.name'],
    agentId: ['agent_id'],
    toolName: ['ioa_observe.entity.name'],
    taskName: ['ioa_observe.entity.name'],
    toolArguments: [(s) => (s.attributes['ioa_observe.entity.input'] === undefined ? undefined : unwrapEntityInput(s.attributes['ioa_observe.entity.input']))],
    toolResult: [(s) => (s.attributes['ioa_observe.entity.output'] === undefined ? undefined : unwrapEntityOutput(s.attributes['ioa_observe.entity.output']))],
    workflowName: ['ioa_observe.workflow.name'],
    input: ['ioa_observe.entity.input'],
    output: ['ioa_observe.entity.output'],
  },
};
