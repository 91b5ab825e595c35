/**
 * The `ioa_observe.*` keys of the AGNTCY observe SDK (the ClickHouse fixtures): `ioa_observe.span.kind`,
 * `ioa_observe.entity.*`, `ioa_observe.workflow.name`, `agent_id`.
 * Its `*.graph` spans that carry `gen_ai.ioa.graph` record the graph topology once; nothing runs under them,
 * so they are not MAS invocations.
 */
import type { SpanRecord } from '../span.js';
import { isObj, parseJsonMaybe } from '../messages.js';
import type { Classification, Dialect } from './types.js';
import { unwrapEntityInput, unwrapEntityOutput } from './traceloop.js';

const KINDS: Record<string, Classification> = {
  workflow: { kind: 'mas' },
  graph: { kind: 'mas' },
  agent: { kind: 'agent' },
  task: { kind: 'task' },
  tool: { kind: 'tool' },
};

/**
 * The agent an ioa_observe method span belongs to: a class decorated `@agent(name="moderator-agent")` records each
 * method as its own agent span, `agent_id` `moderator-agent.init_run`, `moderator-agent.invoke`, with the object as the
 * call's first argument (`{"args": [{"__class__": "ModeratorAgent", …}]}`). Such methods are one agent: the name before
 * the method's.
 */
export function ioaMethodAgent(span: SpanRecord): string | undefined {
  const id = span.attributes.agent_id;
  if (typeof id !== 'string' || span.attributes['ioa_observe.span.kind'] !== 'agent') return undefined;
  const dot = id.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const input = parseJsonMaybe(span.attributes['ioa_observe.entity.input']);
  const self = isObj(input) && Array.isArray(input.args) ? input.args[0] : undefined;
  return isObj(self) && typeof self.__class__ === 'string' ? id.slice(0, dot) : undefined;
}

export const ioaObserve: Dialect = {
  name: 'ioa-observe',
  classify(span) {
    const k = span.attributes['ioa_observe.span.kind'];
    if (typeof k !== 'string') return undefined;
    if (k === 'graph' && span.attributes['gen_ai.ioa.graph'] !== undefined) return { kind: 'other' };
    return Object.hasOwn(KINDS, k) ? KINDS[k] : undefined; // not `constructor` or `__proto__` of a plain object
  },
  fields: {
    agentName: [ioaMethodAgent, 'agent_id', 'ioa_observe.entity.name'],
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
