import type { Element, LLMCall, OntologyLevel } from '@mce/core';

/** Whether an LLM call answered with tool calls only: no text for a judge or a heuristic to read. */
export function answeredWithToolCallsOnly(level: OntologyLevel, element: Element): boolean {
  if (level !== 'LLMCall') return false;
  const outputs = (element as LLMCall).outputMessages;
  return outputs.some((m) => m.toolCalls?.length) && outputs.every((m) => !m.content.trim());
}
