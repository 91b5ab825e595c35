/**
 * Step 7, conversation ends: an agent or MAS call's user input is the first user message of its LLM calls, its final
 * response the last assistant answer (conversation.ts).
 */
import type { AgentCall, LLMCall, MASCall } from '@mce/core';
import { finalAssistantResponse, firstUserInput } from '../conversation.js';

/** Sets `userInput` and `finalResponse` of each call from its LLM calls (in start order), where they have them. */
export function setConversationEnds(calls: readonly (AgentCall | MASCall)[], llmByCall: ReadonlyMap<string | undefined, readonly LLMCall[]>): void {
  for (const c of calls) {
    const own = llmByCall.get(c.id) ?? [];
    const ui = firstUserInput(own);
    const fr = finalAssistantResponse(own);
    if (ui !== undefined) c.userInput = ui;
    if (fr !== undefined) c.finalResponse = fr;
  }
}
