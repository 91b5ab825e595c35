/**
 * What one span says, read through the dialect tables: token usage, finish reasons, status and error, the tool and
 * MCP server it names, the agent or run name.
 */
import type { ElementError, Status, TokenUsage } from '@mce/core';
import { claudeMcpTool, field, fieldAttribute, stringField, stripKindSuffix, type Classification } from '../dialects/index.js';
import { parseJsonMaybe } from '../messages.js';
import type { SpanRecord } from '../span.js';
import { decodeInt } from '../values.js';
import { ifDefined, type Node } from './node.js';

function num(v: unknown): number | undefined {
  const n = decodeInt(v);
  // Counts outside the safe-integer range are corrupt values, not token counts.
  return n !== undefined && n >= 0 && n <= Number.MAX_SAFE_INTEGER ? Math.round(n) : undefined;
}

/** Token counts of an LLM span; a count that is there but is no count ("12abc", -3, 1e30) is said, and left out. */
export function usageOf(span: SpanRecord, warn: (message: string) => void): TokenUsage {
  const count = (name: Exclude<keyof TokenUsage, 'reported'>): number | undefined => {
    const raw = field(span, name);
    const n = num(raw);
    if (raw !== undefined && raw !== null && raw !== '' && n === undefined) {
      warn(`span ${span.spanId} (${span.name}): ${name} ${JSON.stringify(raw)} is not a token count; left out`);
    }
    return n;
  };
  const inputCount = count('inputTokens');
  const outputCount = count('outputTokens');
  const totalCount = count('totalTokens');
  const input = inputCount ?? 0;
  const output = outputCount ?? 0;
  const usage: TokenUsage = {
    inputTokens: input,
    outputTokens: output,
    cacheReadTokens: count('cacheReadTokens') ?? 0,
    cacheWriteTokens: count('cacheWriteTokens') ?? 0,
    reasoningTokens: count('reasoningTokens') ?? 0,
    totalTokens: totalCount ?? Math.min(input + output, Number.MAX_SAFE_INTEGER),
  };
  // No count at all is "usage not reported", not "0 tokens": the metrics skip such a call instead of summing a 0.
  if (inputCount === undefined && outputCount === undefined && totalCount === undefined) usage.reported = false;
  return usage;
}

export function finishReasonsOf(span: SpanRecord): string[] {
  const v = parseJsonMaybe(field(span, 'finishReasons'));
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return typeof v === 'string' && v !== '' ? [v] : [];
}

/** Status and error from span status, `exception` events and `error.type`. */
export function statusOf(span: SpanRecord): { status: Status; error?: ElementError } {
  const exc = span.events.find((e) => e.name === 'exception');
  const errorType = stringField(span, 'errorType');
  if (span.status.code !== 'error' && !exc && !errorType) return { status: span.status.code };
  const type = errorType ?? (typeof exc?.attributes['exception.type'] === 'string' ? (exc.attributes['exception.type'] as string) : undefined);
  const message =
    span.status.message ?? (typeof exc?.attributes['exception.message'] === 'string' ? (exc.attributes['exception.message'] as string) : undefined);
  return { status: 'error', error: { ...(type ? { type } : {}), ...(message ? { message } : {}) } };
}

export function baseOf(node: Node) {
  const s = node.span;
  const { status, error } = statusOf(s);
  return {
    id: s.spanId,
    traceId: s.traceId,
    name: s.name,
    startTime: s.startTime,
    endTime: s.endTime,
    status,
    ...ifDefined('error', error),
    attributes: s.attributes,
  };
}

/** Tool name from the dialects, else the span name without its kind marker. */
export function toolNameOf(span: SpanRecord, cls: Classification): string {
  if (cls.mcpMethod === 'resources/read') {
    const uri = stringField(span, 'mcpResourceUri');
    if (uri) return uri;
  }
  if (cls.mcpMethod === 'prompts/get') {
    const p = stringField(span, 'mcpPromptName');
    if (p) return p;
  }
  const named = stringField(span, 'toolName');
  const n = named ?? (stripKindSuffix(span.name.replace(/^(execute_tool|tools\/call|resources\/read|prompts\/get)\s+/, '')) || span.name || 'tool');
  // An MCP tool as Claude Agent SDK names it (`mcp__server__tool`) is the server's tool `tool`.
  return (cls.mcpMethod ? claudeMcpTool(n)?.tool : undefined) ?? n;
}

/** The MCP server a span names, and where it read the name (for a warning about it). */
export function mcpServerOf(span: SpanRecord): { name: string; source: string | undefined } | undefined {
  const s = stringField(span, 'mcpServer');
  if (s) {
    const attribute = fieldAttribute(span, 'mcpServer');
    return { name: s, source: attribute === undefined ? undefined : `attribute ${attribute}` };
  }
  // On the server side of an MCP request the service itself is the server.
  const service = span.resource['service.name'];
  return span.kind === 'server' && typeof service === 'string' ? { name: service, source: 'resource attribute service.name' } : undefined;
}

/** OpenInference's span for a whole openai-agents trace: a root AGENT span (named after the trace, `Agent workflow`). */
export const isTraceAgent = (n: Node): boolean => !n.parent && n.cls.kind === 'agent' && n.span.attributes['openinference.span.kind'] === 'AGENT';

/** The names an agent span goes by besides its agent name: the raw ids that other spans' attributes name it with. */
export function aliasesOf(span: SpanRecord): string[] {
  return ['agent_id', 'ioa_observe.entity.name'].map((k) => span.attributes[k]).filter((v): v is string => typeof v === 'string');
}

export const agentName = (n: Node) =>
  stringField(n.span, 'agentName') ?? (stripKindSuffix(n.span.name.replace(/^invoke_agent\s+/, '')) || 'agent');

/** The name a span's run goes by: the agent's, the task's or the workflow's (`LangGraph.workflow` → LangGraph). */
export const runName = (n: Node) =>
  n.cls.kind === 'agent' ? agentName(n) : (stringField(n.span, n.cls.kind === 'mas' ? 'workflowName' : 'taskName') ?? stripKindSuffix(n.span.name));
