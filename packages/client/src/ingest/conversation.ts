/**
 * User input and final response of a session, MAS call or agent call, from the messages of its LLM calls.
 * userInput: the first non-empty user message of the earliest LLM call that has one.
 * finalResponse: the last assistant message meant for the user — walking LLM calls from the last to end backwards,
 * skipping routing/control replies: tool-call-only or tool-calling messages, empty text, and structured JSON
 * (router decisions like `{"next": …}` or hand-off envelopes like `{"messages": [{"type": "RequestToSpeak"…}]}`).
 */
import type { LLMCall, Message } from '@mce/core';

export function isControlMessage(m: Message): boolean {
  if (m.toolCalls && m.toolCalls.length) return true;
  const text = m.content.trim();
  if (text === '') return true;
  if (text[0] === '{' || text[0] === '[') {
    try {
      const v = JSON.parse(text) as unknown;
      return v !== null && typeof v === 'object';
    } catch {
      return false;
    }
  }
  return false;
}

export function firstUserInput(llmCalls: readonly LLMCall[]): string | undefined {
  const ordered = [...llmCalls].sort((a, b) => a.startTime - b.startTime);
  for (const c of ordered) {
    const m = c.inputMessages.find((x) => x.role === 'user' && x.content.trim() !== '');
    if (m) return m.content;
  }
  return undefined;
}

export function finalAssistantResponse(llmCalls: readonly LLMCall[]): string | undefined {
  const ordered = [...llmCalls].sort((a, b) => b.endTime - a.endTime || b.startTime - a.startTime);
  for (const c of ordered) {
    for (let i = c.outputMessages.length - 1; i >= 0; i--) {
      const m = c.outputMessages[i]!;
      if (m.role === 'assistant' && !isControlMessage(m)) return m.content;
    }
  }
  return undefined;
}
