/**
 * The dialect tables and the two orders they are asked in.
 * Classification: the most specific marker wins (an MCP method beats `execute_tool`; a GenAI operation beats a
 * span-name suffix; a home-grown `model` attribute is the last resort).
 * Fields: current GenAI names first, then the older names and the vendor conventions.
 */
import type { Message, ToolDefinition } from '@mce/core';
import type { SpanRecord } from '../span.js';
import { agentFramework } from './agent-framework.js';
import { anyAgent } from './any-agent.js';
import { braintrust } from './braintrust.js';
import { folk } from './folk.js';
import { genai } from './genai.js';
import { genaiLegacy } from './genai-legacy.js';
import { ioaObserve } from './ioa-observe.js';
import { mcp } from './mcp.js';
import { openinference } from './openinference.js';
import { pydanticAi } from './pydantic-ai.js';
import { traceloop } from './traceloop.js';
import type { Classification, Dialect, Field, FieldSource } from './types.js';
import { vercel } from './vercel.js';

export type { Classification, Dialect, ElementKind, Field } from './types.js';
export { stripKindSuffix } from './traceloop.js';
export { claudeMcpTool } from './mcp.js';

const CLASSIFY_ORDER: readonly Dialect[] = [mcp, pydanticAi, genai, openinference, vercel, braintrust, ioaObserve, traceloop, agentFramework, genaiLegacy, folk];
const FIELD_ORDER: readonly Dialect[] = [genai, genaiLegacy, openinference, vercel, mcp, traceloop, ioaObserve, pydanticAi, anyAgent, agentFramework, braintrust, folk];

export function classify(span: SpanRecord): Classification {
  for (const d of CLASSIFY_ORDER) {
    const c = d.classify?.(span);
    if (c) return c;
  }
  return { kind: 'other' };
}

const present = (v: unknown) => v !== undefined && v !== null && v !== '';

/** Per field, every source of every dialect in FIELD_ORDER, flattened once (the lookup is on the hot path). */
const SOURCES = new Map<Field, FieldSource[]>();
for (const d of FIELD_ORDER) {
  for (const [name, sources] of Object.entries(d.fields ?? {}) as [Field, readonly FieldSource[]][]) {
    const list = SOURCES.get(name) ?? [];
    list.push(...sources);
    SOURCES.set(name, list);
  }
}

/** The first value any dialect has for `field` on this span. */
export function field(span: SpanRecord, name: Field): unknown {
  const sources = SOURCES.get(name);
  if (!sources) return undefined;
  const attrs = span.attributes;
  for (let i = 0; i < sources.length; i++) {
    const src = sources[i]!;
    const v = typeof src === 'string' ? attrs[src] : src(span);
    if (present(v)) return v;
  }
  return undefined;
}

/** Every value the dialects have for `field` on this span, in their order (for a field whose first value may be a placeholder). */
export function* fieldValues(span: SpanRecord, name: Field): Generator<unknown> {
  for (const src of SOURCES.get(name) ?? []) {
    const v = typeof src === 'string' ? span.attributes[src] : src(span);
    if (present(v)) yield v;
  }
}

/** The attribute `field` read the value from (undefined when no attribute holds it, or a dialect's function gave it). */
export function fieldAttribute(span: SpanRecord, name: Field): string | undefined {
  for (const src of SOURCES.get(name) ?? []) {
    if (typeof src === 'string' && present(span.attributes[src])) return src;
    if (typeof src !== 'string' && present(src(span))) return undefined;
  }
  return undefined;
}

export function stringField(span: SpanRecord, name: Field): string | undefined {
  const v = field(span, name);
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

type Extractor = 'inputMessages' | 'outputMessages' | 'toolDefinitions';
function firstOf<T>(span: SpanRecord, key: Extractor): T[] | undefined {
  for (const d of FIELD_ORDER) {
    const v = d[key]?.(span) as T[] | undefined;
    if (v && v.length) return v;
  }
  return undefined;
}

export const inputMessages = (span: SpanRecord): Message[] => firstOf<Message>(span, 'inputMessages') ?? [];
export const outputMessages = (span: SpanRecord): Message[] => firstOf<Message>(span, 'outputMessages') ?? [];
export const toolDefinitions = (span: SpanRecord): ToolDefinition[] => firstOf<ToolDefinition>(span, 'toolDefinitions') ?? [];
