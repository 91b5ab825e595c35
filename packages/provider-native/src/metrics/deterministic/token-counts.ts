import type { LLMCall, TokenUsage } from '@mce/core';

export type TokenField = keyof TokenUsage;

/** A token count of an LLM call, refusing NaN / negative / non-numeric counts instead of summing them silently. */
export function tokenCount(call: LLMCall, field: TokenField): number {
  const value = (call.usage as Partial<TokenUsage> | undefined)?.[field];
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new Error(`LLMCall ${call.id}: usage.${field} is not a non-negative number (${String(value)})`);
  }
  return value;
}
