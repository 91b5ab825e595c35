/**
 * zod schemas of the ontology, used at the edges: the session JSON format, store reads and every MetricResult write.
 * `z.toJSONSchema(SessionSchema)` is the published JSON Schema of the session format.
 */
import { z } from 'zod';
import { ONTOLOGY_LEVELS } from './types.js';
import type { MetricResult, Session } from '../index.js';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
/** The largest epoch-millisecond time a Date can hold: a larger one is a unit mix-up (ns or µs), and no date shows it. */
export const MAX_EPOCH_MS = 8.64e15;
const epochMs = finite.refine((n) => Math.abs(n) <= MAX_EPOCH_MS, 'is out of the range of dates (epoch milliseconds, at most ±8.64e15)');
const count = z.number().int().nonnegative();
/** What an id must not contain, in the words every refusal of one uses. */
export const NO_CONTROL_CHARACTER = 'must not contain a control character (U+0000–U+001F, U+007F)';

/**
 * The longest key, in UTF-8 bytes: PostgreSQL's index refuses a row over ~2.7 KB (with its raw error), SQLite does
 * not; one limit for every store.
 */
export const MAX_KEY_BYTES = 1024;
export const NO_LONE_SURROGATE = 'must not contain a lone surrogate (\\ud800–\\udfff without its pair): no UTF-8 text can hold it';
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/**
 * A key the stores index (session id, call id, MCP server name): no control character. PostgreSQL text cannot hold a
 * NUL, and a newline or escape in an id breaks the lines, tables and URLs it is printed in. Trace ingestion applies
 * the same rule (`hasControlCharacter`) to the ids it reads from spans. No lone surrogate and at most MAX_KEY_BYTES:
 * the stores must keep two ids apart and accept every id alike.
 */
const key = z
  .string()
  .min(1)
  .refine((s) => !hasControlCharacter(s), NO_CONTROL_CHARACTER)
  .refine((s) => !hasLoneSurrogate(s), NO_LONE_SURROGATE)
  .refine((s) => Buffer.byteLength(s, 'utf8') <= MAX_KEY_BYTES, `must be at most ${MAX_KEY_BYTES} bytes in UTF-8`);

/**
 * Whether `s` holds half of a surrogate pair alone: written as UTF-8 (PostgreSQL, a URL) it becomes U+FFFD, so two
 * different such ids would become one, and the id stored could no longer be asked for by URL.
 */
export function hasLoneSurrogate(s: string): boolean {
  return LONE_SURROGATE.test(s);
}

/** `s` with each lone surrogate replaced by U+FFFD, as writing it as UTF-8 would (`String.prototype.toWellFormed`). */
export function withoutLoneSurrogates(s: string): string {
  return s.replace(LONE_SURROGATES, '\ufffd');
}

/** A free-text name the stores keep as text (service, app): no NUL, which PostgreSQL would drop, no lone surrogate. */
const text = z
  .string()
  .refine((s) => !s.includes('\u0000'), 'must not contain a NUL character (U+0000)')
  .refine((s) => !hasLoneSurrogate(s), NO_LONE_SURROGATE);

/** Whether `s` holds a control character (U+0000–U+001F, U+007F): such a string is no id. */
export function hasControlCharacter(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** `s` quoted, its control characters written as `\uXXXX`: how a message shows an id it refuses. */
export function quoteControlCharacters(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s.charAt(i);
    out += c < 0x20 || c === 0x7f ? `\\u${c.toString(16).padStart(4, '0')}` : c === 0x22 || c === 0x5c ? `\\${ch}` : ch;
  }
  return `"${out}"`;
}

const record = z.record(z.string(), z.unknown());

export const StatusSchema = z.enum(['ok', 'error', 'unset']);
export const ElementErrorSchema = z.object({ type: z.string().optional(), message: z.string().optional() });

export const MessageSchema = z.object({
  role: z.string().min(1),
  content: z.string(),
  name: z.string().optional(),
  toolCalls: z
    .array(z.object({ id: z.string().optional(), name: z.string(), arguments: z.unknown().optional() }))
    .optional(),
  toolCallId: z.string().optional(),
});

export const ToolDefinitionSchema = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  inputSchema: record.optional(),
});

export const TokenUsageSchema = z.object({
  inputTokens: count,
  outputTokens: count,
  cacheReadTokens: count,
  cacheWriteTokens: count,
  reasoningTokens: count,
  totalTokens: count,
  reported: z.boolean().optional(),
});

export const MCPServerSchema = z.object({
  name: key,
  transport: z.string().optional(),
  tools: z.array(ToolDefinitionSchema).default([]),
  resources: z
    .array(
      z.object({
        uri: z.string().min(1),
        name: z.string().optional(),
        description: z.string().optional(),
        mimeType: z.string().optional(),
      }),
    )
    .default([]),
  prompts: z
    .array(
      z.object({
        name: z.string().min(1),
        description: z.string().optional(),
        arguments: z
          .array(z.object({ name: z.string(), description: z.string().optional(), required: z.boolean().optional() }))
          .optional(),
      }),
    )
    .default([]),
});

const callBase = {
  id: key,
  traceId: z.string().optional(),
  parentId: z.string().optional(),
  masCallId: z.string().optional(),
  agentCallId: z.string().optional(),
  name: z.string(),
  startTime: epochMs,
  endTime: epochMs,
  status: StatusSchema.default('unset'),
  error: ElementErrorSchema.optional(),
  input: z.unknown().optional(),
  output: z.unknown().optional(),
  attributes: record.optional(),
};

export const MASCallSchema = z.object({
  ...callBase,
  kind: z.literal('MASCall'),
  workflowName: z.string().optional(),
  userInput: z.string().optional(),
  finalResponse: z.string().optional(),
});

export const AgentCallSchema = z.object({
  ...callBase,
  kind: z.literal('AgentCall'),
  agentName: z.string().min(1),
  agentId: z.string().optional(),
  userInput: z.string().optional(),
  finalResponse: z.string().optional(),
  mcpServers: z.array(MCPServerSchema).optional(),
});

export const TaskCallSchema = z.object({ ...callBase, kind: z.literal('TaskCall'), taskName: z.string() });

export const LLMCallSchema = z.object({
  ...callBase,
  kind: z.literal('LLMCall'),
  operation: z.enum(['chat', 'text_completion', 'generate_content', 'embeddings']).default('chat'),
  requestModel: z.string().optional(),
  responseModel: z.string().optional(),
  provider: z.string().optional(),
  usage: TokenUsageSchema,
  inputMessages: z.array(MessageSchema).default([]),
  outputMessages: z.array(MessageSchema).default([]),
  finishReasons: z.array(z.string()).default([]),
  toolDefinitions: z.array(ToolDefinitionSchema).default([]),
});

export const ToolCallSchema = z.object({
  ...callBase,
  kind: z.literal('ToolCall'),
  toolName: z.string().min(1),
  toolCallId: z.string().optional(),
  arguments: z.unknown().optional(),
  result: z.unknown().optional(),
  definition: ToolDefinitionSchema.optional(),
  mcp: z
    .object({
      server: z.string().optional(),
      kind: z.enum(['tool', 'resource', 'prompt']),
      method: z.string().optional(),
      uri: z.string().optional(),
    })
    .optional(),
});

export const SessionSchema = z.object({
  kind: z.literal('Session').default('Session'),
  id: key,
  startTime: epochMs,
  endTime: epochMs,
  serviceName: text.optional(),
  appName: text.optional(),
  traceIds: z.array(z.string()).default([]),
  userInput: z.string().optional(),
  finalResponse: z.string().optional(),
  masCalls: z.array(MASCallSchema).default([]),
  agentCalls: z.array(AgentCallSchema).default([]),
  taskCalls: z.array(TaskCallSchema).default([]),
  llmCalls: z.array(LLMCallSchema).default([]),
  toolCalls: z.array(ToolCallSchema).default([]),
  mcpServers: z.array(MCPServerSchema).default([]),
  attributes: record.optional(),
}).superRefine((session, ctx) => {
  // A time span that ends before it starts has no duration: refused where it is written, naming it (trace ingestion
  // cannot refuse a span; it reads such a one as a 0 ms call, with a warning).
  if (endsBeforeStart(session)) {
    ctx.addIssue({ code: 'custom', path: ['endTime'], message: `${session.endTime} is before startTime ${session.startTime}` });
  }
  // A call id names one call of the session whatever its class: the stores key calls by it, and a second call with
  // the same id would silently replace the first.
  const seen = new Map<string, string>();
  for (const list of ['masCalls', 'agentCalls', 'taskCalls', 'llmCalls', 'toolCalls'] as const) {
    session[list].forEach((call, i) => {
      if (endsBeforeStart(call)) {
        ctx.addIssue({ code: 'custom', path: [list, i, 'endTime'], message: `${call.endTime} is before startTime ${call.startTime}` });
      }
      const first = seen.get(call.id);
      if (first === undefined) seen.set(call.id, `${list}[${i}]`);
      else ctx.addIssue({ code: 'custom', path: [list, i, 'id'], message: `call id "${call.id}" is already used by ${first}` });
    });
  }
  // The attributions the metrics group by must name a call of the right class in this session: a misspelt agent id
  // would otherwise count as an agent of its own. (`parentId` may name a span that is not a call, or was not exported.)
  const agents = new Set(session.agentCalls.map((c) => c.id));
  const mas = new Set(session.masCalls.map((c) => c.id));
  for (const list of ['masCalls', 'agentCalls', 'taskCalls', 'llmCalls', 'toolCalls'] as const) {
    session[list].forEach((call, i) => {
      const { agentCallId, masCallId } = call;
      if (agentCallId !== undefined && (!agents.has(agentCallId) || agentCallId === call.id)) {
        const problem = agentCallId === call.id ? 'is the call itself' : `is not an agent call of this session${where(seen.get(agentCallId))}`;
        ctx.addIssue({ code: 'custom', path: [list, i, 'agentCallId'], message: `"${agentCallId}" ${problem}` });
      }
      if (masCallId !== undefined && (!mas.has(masCallId) || masCallId === call.id)) {
        const problem = masCallId === call.id ? 'is the call itself' : `is not a MAS call of this session${where(seen.get(masCallId))}`;
        ctx.addIssue({ code: 'custom', path: [list, i, 'masCallId'], message: `"${masCallId}" ${problem}` });
      }
    });
  }
});

/** Both times valid (a time out of range is reported on its own) and the end before the start. */
const endsBeforeStart = ({ startTime, endTime }: { startTime: number; endTime: number }) =>
  Math.abs(startTime) <= MAX_EPOCH_MS && Math.abs(endTime) <= MAX_EPOCH_MS && endTime < startTime;

const where = (place: string | undefined) => (place === undefined ? '' : ` (it is ${place})`);

/** The session JSON file: one session, or `{ "sessions": [...] }`. */
export const SessionFileSchema = z.union([
  z.object({ sessions: z.array(SessionSchema) }),
  SessionSchema,
]);

export const MetricResultSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  result: finite,
  reasoning: z.string(),
  evaluationModel: z.string().nullable(),
  evaluationPromptTokenCount: count,
  evaluationCompletionTokenCount: count,
  evaluationTotalTokenCount: count,
  evaluationCost: finite.refine((n) => n >= 0, 'must not be negative'),
  timestamp: z.iso.datetime({ offset: true }),
  ofMetricType: z.string().min(1),
  measures: z.object({ level: z.enum(ONTOLOGY_LEVELS), id: z.string().min(1) }),
  sessionId: z.string().min(1),
  details: record.optional(),
});

export const MetricDefinitionSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  computedBy: z.string().min(1),
  unit: z.string(),
  valueRange: z.string(),
  description: z.string().optional(),
});

// Keep the schemas and the hand-written types in lock-step.
type Assert<T extends true> = T;
export type _SessionMatches = Assert<z.infer<typeof SessionSchema> extends Session ? true : false>;
export type _ResultMatches = Assert<z.infer<typeof MetricResultSchema> extends MetricResult ? true : false>;

export type ValidationIssue = { path: string; message: string };

/** Flatten a zod error into `path: message` pairs that name the field. */
export function describeIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((i) => ({ path: i.path.map(String).join('.') || '(root)', message: i.message }));
}

/** The same as `path: message` lines, for an error message. */
export function issueLines(error: z.ZodError): string[] {
  return describeIssues(error).map((i) => `${i.path}: ${i.message}`);
}

/**
 * Validate a MetricResult; returns the reasons it does not fit the ontology, or an empty list.
 *
 * Every result is validated before a store write (hundreds of thousands per minute in a worker), and zod costs tens
 * of microseconds each; `fitsMetricResult` checks the same constraints by hand in a fraction of a microsecond. It
 * only ever says yes to what `MetricResultSchema` accepts; when it says no, zod runs and names the issues.
 */
export function validateMetricResult(value: unknown): ValidationIssue[] {
  if (fitsMetricResult(value)) return [];
  const parsed = MetricResultSchema.safeParse(value);
  return parsed.success ? [] : describeIssues(parsed.error);
}

/** zod's own pattern for `timestamp` (ISO 8601 with offset), so the fast check cannot drift from the schema. */
const TIMESTAMP_PATTERN = MetricResultSchema.shape.timestamp._zod.def.pattern as RegExp;
const LEVELS: ReadonlySet<unknown> = new Set(ONTOLOGY_LEVELS);
/** Results of one task share a timestamp: the last one that matched skips the regex. */
let lastTimestamp = '';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown) => typeof v === 'string' && v.length > 0;
const isFinite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isCount = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/**
 * True only when `MetricResultSchema` accepts `value` (`z.number()` rejects NaN and ±Infinity, `.int()` means a safe
 * integer, `z.record` wants a plain object without enumerable symbol keys). Unusual values (records with symbol keys
 * or an odd prototype) answer false and are left to zod.
 */
export function fitsMetricResult(value: unknown): boolean {
  if (!isObject(value)) return false;
  const r = value;
  const measures = r.measures;
  if (
    !isId(r.id) ||
    !isId(r.name) ||
    !isFinite(r.result) ||
    typeof r.reasoning !== 'string' ||
    (r.evaluationModel !== null && typeof r.evaluationModel !== 'string') ||
    !isCount(r.evaluationPromptTokenCount) ||
    !isCount(r.evaluationCompletionTokenCount) ||
    !isCount(r.evaluationTotalTokenCount) ||
    !isFinite(r.evaluationCost) ||
    r.evaluationCost < 0 ||
    !isId(r.ofMetricType) ||
    !isObject(measures) ||
    !LEVELS.has(measures.level) ||
    !isId(measures.id) ||
    !isId(r.sessionId)
  ) {
    return false;
  }
  const timestamp = r.timestamp;
  if (typeof timestamp !== 'string') return false;
  if (timestamp !== lastTimestamp) {
    TIMESTAMP_PATTERN.lastIndex = 0;
    if (!TIMESTAMP_PATTERN.test(timestamp)) return false;
    lastTimestamp = timestamp;
  }
  const details = r.details;
  return details === undefined || isPlainRecord(details);
}

/**
 * A plain object (prototype Object.prototype or null; no own `constructor`, which zod's plain-object test looks at)
 * without symbol keys: a subset of what `z.record(z.string(), z.unknown())` accepts.
 */
function isPlainRecord(v: unknown): boolean {
  if (!isObject(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  return !Object.hasOwn(v, 'constructor') && Object.getOwnPropertySymbols(v).length === 0;
}
