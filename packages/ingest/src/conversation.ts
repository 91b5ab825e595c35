/**
 * User input and final response of a session, MAS call or agent call, from the messages of its LLM calls.
 * userInput: the first non-empty user message of the earliest LLM call that has one.
 * finalResponse: the last assistant message meant for the user — walking LLM calls from the last to end backwards,
 * skipping routing/control replies: tool-call-only or tool-calling messages, empty text, and structured JSON
 * (router decisions like `{"next": …}` or hand-off envelopes like `{"messages": [{"type": "RequestToSpeak"…}]}`).
 */
import type { LLMCall, Message } from '@mce/core';

function isControlMessage(m: Message): boolean {
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

/** `calls` in start order (a stable sort by start): the first call with a non-empty user message decides. */
export function firstUserInput(calls: readonly LLMCall[]): string | undefined {
  for (const c of calls) {
    const m = c.inputMessages.find((x) => x.role === 'user' && x.content.trim() !== '');
    if (m) return m.content;
  }
  return undefined;
}

/** Order of the final-response search: latest end first, then latest start (> 0: `a` comes after `b`). */
const latestEndFirst = (a: LLMCall, b: LLMCall) => b.endTime - a.endTime || b.startTime - a.startTime;

/** The last assistant message of a call meant for the user, or undefined. */
function lastReply(c: LLMCall): string | undefined {
  for (let i = c.outputMessages.length - 1; i >= 0; i--) {
    const m = c.outputMessages[i]!;
    if (m.role === 'assistant' && !isControlMessage(m)) return m.content;
  }
  return undefined;
}

/**
 * `calls` in start order: the reply of the first call that has one in latestEndFirst order (ties: list order, as a
 * stable sort gives), found in one pass instead of sorting. The pass runs backwards: in start order the latest
 * ending call is usually met first, and calls that cannot come before it are skipped without reading their messages.
 */
export function finalAssistantResponse(calls: readonly LLMCall[]): string | undefined {
  let best: LLMCall | undefined;
  let reply: string | undefined;
  for (let i = calls.length - 1; i >= 0; i--) {
    const c = calls[i]!;
    // Skip only calls that come strictly after the best: a tie (or a NaN comparison, which sort treats as one) goes to
    // the call earlier in the list, met later here.
    if (best && latestEndFirst(c, best) > 0) continue;
    const r = lastReply(c);
    if (r !== undefined) {
      best = c;
      reply = r;
    }
  }
  return reply;
}
