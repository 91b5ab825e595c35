/**
 * A dialect is one instrumentation convention's vocabulary, written as data: how it marks the kind of a span,
 * which attribute keys carry each field, and how it writes messages and tool definitions.
 * The normaliser asks the dialects in order (see `index.ts`); the first one with a value wins, so old and new
 * names can sit side by side on the same span.
 */
import type { LLMOperation, Message, ToolDefinition } from '@mce/core';
import type { SpanRecord } from '../span.js';

export type ElementKind = 'mas' | 'agent' | 'task' | 'llm' | 'tool' | 'mcp' | 'other';

export interface Classification {
  kind: ElementKind;
  operation?: LLMOperation;
  /** The MCP method (`tools/call`, `tools/list`, …) when the span is an MCP request. */
  mcpMethod?: string;
}

export type Field =
  | 'requestModel'
  | 'responseModel'
  | 'provider'
  | 'inputTokens'
  | 'outputTokens'
  | 'cacheReadTokens'
  | 'cacheWriteTokens'
  | 'reasoningTokens'
  | 'totalTokens'
  | 'finishReasons'
  | 'toolName'
  | 'toolCallId'
  | 'toolArguments'
  | 'toolResult'
  | 'toolDescription'
  | 'agentName'
  | 'agentId'
  | 'workflowName'
  | 'taskName'
  | 'input'
  | 'output'
  | 'errorType'
  | 'mcpServer'
  | 'mcpTransport'
  | 'mcpResourceUri'
  | 'mcpPromptName';

/** An attribute key, or a function computing the value from the span (for values that need unpacking). */
export type FieldSource = string | ((span: SpanRecord) => unknown);

export interface Dialect {
  name: string;
  classify?: (span: SpanRecord) => Classification | undefined;
  fields?: Partial<Record<Field, readonly FieldSource[]>>;
  inputMessages?: (span: SpanRecord) => Message[] | undefined;
  outputMessages?: (span: SpanRecord) => Message[] | undefined;
  toolDefinitions?: (span: SpanRecord) => ToolDefinition[] | undefined;
}

const LLM_OPERATIONS: Record<string, LLMOperation> = {
  chat: 'chat',
  text_completion: 'text_completion',
  completion: 'text_completion',
  generate_content: 'generate_content',
  embeddings: 'embeddings',
  embedding: 'embeddings',
  // any-agent's name for a model call.
  call_llm: 'chat',
};

/** `chat`, `completion`, `embeddings`… → the ontology's LLM operation. */
export function llmOperation(value: unknown): LLMOperation | undefined {
  if (typeof value !== 'string') return undefined;
  return Object.hasOwn(LLM_OPERATIONS, value) ? LLM_OPERATIONS[value] : LLM_OPERATIONS[value.toLowerCase()];
}
