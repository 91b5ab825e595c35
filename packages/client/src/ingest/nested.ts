/**
 * One call seen as two nested spans: an LLM span directly inside an LLM span (a framework span around the provider
 * client's span: LangChain's `ChatOpenAI.chat` around the OpenAI client's `openai.chat`). The outer span is the call
 * and takes from the inner one what it did not record: its tokens count once.
 */
import type { ElementError, LLMCall, Message, Status, ToolDefinition, TokenUsage } from '@mce/core';

/** What an inner LLM span (or the call made of it) gives the outer call; the lists are read only when needed. */
export interface InnerLlm {
  requestModel: string | undefined;
  responseModel: string | undefined;
  provider: string | undefined;
  /** Read once per inner span, always (a bad count in it is said, merged or not). */
  usage: TokenUsage;
  inputMessages(): Message[];
  outputMessages(): Message[];
  finishReasons(): string[];
  toolDefinitions(): ToolDefinition[];
  status: Status;
  error?: ElementError | undefined;
}

/**
 * Fold an inner LLM span into the outer call `c` (changed in place, `c.usage` included). Nested spans of the same call
 * fill what the outer span did not record. The provider is the inner span's when it names one: it is the client
 * closest to the API (a LangChain span says "Langchain").
 */
export function foldInnerLlm(c: LLMCall, inner: InnerLlm): void {
  if (c.requestModel === undefined && inner.requestModel !== undefined) c.requestModel = inner.requestModel;
  if (c.responseModel === undefined && inner.responseModel !== undefined) c.responseModel = inner.responseModel;
  if (inner.provider !== undefined) c.provider = inner.provider;
  if (c.usage.totalTokens === 0) c.usage = inner.usage;
  else {
    // The same call's counts: the cache and reasoning breakdown the outer span left at 0 (they lower or explain the
    // cost) comes from the inner one.
    for (const k of ['cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens'] as const) {
      if (c.usage[k] === 0 && inner.usage[k] > 0) c.usage[k] = inner.usage[k];
    }
  }
  if (!c.inputMessages.length) c.inputMessages = inner.inputMessages();
  if (!c.outputMessages.length) c.outputMessages = inner.outputMessages();
  if (!c.finishReasons.length) c.finishReasons = inner.finishReasons();
  if (!c.toolDefinitions.length) c.toolDefinitions = inner.toolDefinitions();
  if (inner.status === 'error' && c.status !== 'error') {
    c.status = 'error';
    if (inner.error !== undefined) c.error = inner.error;
  }
}
