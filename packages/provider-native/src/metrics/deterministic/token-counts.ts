import type { LLMCall, TokenUsage } from '@mce/core';

/** A token count of TokenUsage (not its `reported` flag). */
export type TokenField = Exclude<keyof TokenUsage, 'reported'>;

/** A usable token count: a finite, non-negative number. */
export function isCount(value: unknown): value is number {
  return typeof value === 'number' && value >= 0 && value !== Infinity;
}

/** The error reported for an unusable count (a metric fails with it rather than sum NaN silently). */
export function invalidCount(call: LLMCall, field: TokenField, value: unknown): Error {
  return new Error(`LLMCall ${call.id}: usage.${field} is not a non-negative number (${String(value)})`);
}

/** A token count of an LLM call, refusing NaN / negative / non-numeric counts instead of summing them silently. */
export function tokenCount(call: LLMCall, field: TokenField): number {
  const value = (call.usage as Partial<TokenUsage> | undefined)?.[field];
  if (!isCount(value)) throw invalidCount(call, field, value);
  return value;
}

/** Why a call's token and cost results are skipped: its source recorded no token count. */
export const USAGE_NOT_REPORTED = 'usage not reported: the trace records no token count for this LLM call';

/** Whether the call's source recorded token counts (`usage.reported` is false only when it recorded none). */
export function usageReported(call: LLMCall): boolean {
  return (call.usage as Partial<TokenUsage> | undefined)?.reported !== false;
}

/** The words a container's sum adds about its calls without usage (empty when every call reported it). */
export function withoutUsageNote(callsWithoutUsage: number): string {
  return callsWithoutUsage > 0 ? `; ${callsWithoutUsage} LLM call(s) without usage reported, not counted` : '';
}
