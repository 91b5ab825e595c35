/**
 * The fields an expression may read, per level: the whitelist. Anything else is refused when the configuration is
 * loaded. A field the trace did not record for one element (tokens of a call without usage, a workflow without a
 * name) makes that element's result a failure, never a 0.
 */
import { ONTOLOGY_LEVELS, type AgentCall, type Call, type Element, type LLMCall, type MASCall, type OntologyLevel, type TaskCall, type ToolCall } from '@mce/core';

export type ValueType = 'number' | 'string' | 'boolean';
export type Value = number | string | boolean;

export interface FieldSpec {
  type: ValueType;
  levels: readonly OntologyLevel[];
  description: string;
  /** The value, or undefined when the trace did not record it for this element. */
  read(element: Element): Value | undefined;
}

const CALL_LEVELS = ONTOLOGY_LEVELS.filter((l) => l !== 'Session');

function durationMs(element: Element): number | undefined {
  const ms = element.endTime - element.startTime;
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/** A token count of an LLM call; undefined when the source reported no usage for it. */
const tokens = (pick: (u: LLMCall['usage']) => number) => (element: Element) => {
  const usage = (element as LLMCall).usage;
  return usage.reported === false ? undefined : pick(usage);
};

const text = (value: string | undefined) => (value !== undefined && value !== '' ? value : undefined);

export const FIELDS: Readonly<Record<string, FieldSpec>> = Object.freeze({
  duration: { type: 'number', levels: ONTOLOGY_LEVELS, description: 'end − start, in seconds', read: (e) => { const ms = durationMs(e); return ms === undefined ? undefined : ms / 1000; } },
  duration_ms: { type: 'number', levels: ONTOLOGY_LEVELS, description: 'end − start, in milliseconds', read: durationMs },
  status: { type: 'string', levels: CALL_LEVELS, description: 'ok, error or unset', read: (e) => (e as Call).status },
  is_error: { type: 'boolean', levels: CALL_LEVELS, description: 'the call ended in error', read: (e) => (e as Call).status === 'error' },
  name: { type: 'string', levels: CALL_LEVELS, description: 'the span name', read: (e) => text((e as Call).name) },
  agent_name: { type: 'string', levels: ['AgentCall'], description: 'the agent', read: (e) => text((e as AgentCall).agentName) },
  tool_name: { type: 'string', levels: ['ToolCall'], description: 'the tool', read: (e) => text((e as ToolCall).toolName) },
  task_name: { type: 'string', levels: ['TaskCall'], description: 'the task', read: (e) => text((e as TaskCall).taskName) },
  workflow_name: { type: 'string', levels: ['MASCall'], description: 'the workflow', read: (e) => text((e as MASCall).workflowName) },
  is_mcp: { type: 'boolean', levels: ['ToolCall'], description: 'an MCP tool, resource or prompt call', read: (e) => (e as ToolCall).mcp !== undefined },
  model: { type: 'string', levels: ['LLMCall'], description: 'the response model, else the request model', read: (e) => text((e as LLMCall).responseModel ?? (e as LLMCall).requestModel) },
  input_tokens: { type: 'number', levels: ['LLMCall'], description: 'input tokens (cached ones included)', read: tokens((u) => u.inputTokens) },
  output_tokens: { type: 'number', levels: ['LLMCall'], description: 'output tokens', read: tokens((u) => u.outputTokens) },
  total_tokens: { type: 'number', levels: ['LLMCall'], description: 'total tokens', read: tokens((u) => u.totalTokens) },
  cache_read_tokens: { type: 'number', levels: ['LLMCall'], description: 'input tokens read from a cache', read: tokens((u) => u.cacheReadTokens) },
  reasoning_tokens: { type: 'number', levels: ['LLMCall'], description: 'reasoning tokens', read: tokens((u) => u.reasoningTokens) },
  input_messages: { type: 'number', levels: ['LLMCall'], description: 'messages sent', read: (e) => (e as LLMCall).inputMessages.length },
  output_messages: { type: 'number', levels: ['LLMCall'], description: 'messages returned', read: (e) => (e as LLMCall).outputMessages.length },
} satisfies Record<string, FieldSpec>);

/** The field, when it exists at every one of `levels`; else why not. */
export function fieldAt(name: string, levels: readonly OntologyLevel[]): FieldSpec | string {
  const spec = Object.hasOwn(FIELDS, name) ? FIELDS[name] : undefined;
  if (!spec) return `unknown field "${name}" (fields: ${Object.keys(FIELDS).join(', ')})`;
  const missing = levels.filter((l) => !spec.levels.includes(l));
  return missing.length === 0 ? spec : `${name} is not a field of ${missing.join(', ')} (it is one of ${spec.levels.join(', ')})`;
}
