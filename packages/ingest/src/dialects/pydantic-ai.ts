/**
 * pydantic-ai's own spans (its default instrumentation, as Logfire shows them): the run is `agent run` (older) or
 * `<agent name> run` with `agent_name` / `model_name`; each tool is a `running tool` span whose `logfire.msg` is
 * `running tool: X` (`gen_ai.tool.name`, `tool_arguments`, `tool_response`); the span grouping one step's tools is
 * `running tools` (`running N tools` in its message): plumbing, not a tool. Its model calls are GenAI `chat …` spans.
 * A span counts as pydantic-ai's when its name or `logfire.msg` has these forms and it carries pydantic-ai's keys
 * (`agent_name`, `model_name`, `gen_ai.tool.name`) or its scope is `pydantic-ai`.
 */
import type { SpanRecord } from '../span.js';
import type { Dialect } from './types.js';

const message = (span: SpanRecord): string => {
  const msg = span.attributes['logfire.msg'];
  return typeof msg === 'string' ? msg : '';
};

const isPydanticAi = (span: SpanRecord): boolean =>
  span.scope === 'pydantic-ai' ||
  span.attributes.agent_name !== undefined ||
  span.attributes.model_name !== undefined ||
  span.attributes['gen_ai.tool.name'] !== undefined;

const mayBeOurs = (text: string) => text.startsWith('running ') || text.endsWith(' run');

const TOOLS_GROUP = /^running (?:tools|\d+ tools?)(?::|$)/;
const TOOL = /^running tool(?:: (.+))?$/;
const RUN = /^(?:agent|.+) run$/;

function toolNameOf(span: SpanRecord): string | undefined {
  const named = TOOL.exec(message(span))?.[1] ?? TOOL.exec(span.name)?.[1];
  return named?.trim() || undefined;
}

export const pydanticAi: Dialect = {
  name: 'pydantic-ai',
  classify(span) {
    const name = span.name;
    const msg = message(span);
    // Asked of every span: two string checks before any pattern.
    if (!mayBeOurs(name) && !mayBeOurs(msg)) return undefined;
    if (TOOLS_GROUP.test(name) || TOOLS_GROUP.test(msg)) return { kind: 'other' };
    if (!isPydanticAi(span)) return undefined;
    if (TOOL.test(name) || TOOL.test(msg)) return { kind: 'tool' };
    // `workflow.run` and the like have no space before `run`: only `agent run` and `<name> run` are runs.
    if ((RUN.test(name) || RUN.test(msg)) && (span.attributes.agent_name !== undefined || name === 'agent run')) return { kind: 'agent' };
    return undefined;
  },
  fields: {
    agentName: ['agent_name', (s) => (RUN.test(s.name) && s.name !== 'agent run' ? s.name.slice(0, -' run'.length) : undefined)],
    toolName: [toolNameOf],
    toolArguments: ['tool_arguments'],
    toolResult: ['tool_response'],
    output: ['final_result'],
  },
};
