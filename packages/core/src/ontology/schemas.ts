/**
 * zod schemas of the ontology, used at the edges: the session JSON format, store reads and every MetricResult write.
 * `z.toJSONSchema(SessionSchema)` is the published JSON Schema of the session format.
 */
import { z } from 'zod';
import { ONTOLOGY_LEVELS } from './types.js';
import type { MetricResult, Session } from '../index.js';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const count = z.number().int().nonnegative();
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
});

export const MCPServerSchema = z.object({
  name: z.string().min(1),
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
  id: z.string().min(1),
  traceId: z.string().optional(),
  parentId: z.string().optional(),
  masCallId: z.string().optional(),
  agentCallId: z.string().optional(),
  name: z.string(),
  startTime: finite,
  endTime: finite,
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
  id: z.string().min(1),
  startTime: finite,
  endTime: finite,
  serviceName: z.string().optional(),
  appName: z.string().optional(),
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
});

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

/** Validate a MetricResult; returns the reasons it does not fit the ontology, or an empty list. */
export function validateMetricResult(value: unknown): ValidationIssue[] {
  const parsed = MetricResultSchema.safeParse(value);
  return parsed.success ? [] : describeIssues(parsed.error);
}
