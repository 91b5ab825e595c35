/**
 * What an LLM-judged metric shows the judge about one element: its user input, its response and the conversation
 * in its scope. Missing pieces throw MissingJudgeInputError (the metric fails, it is never scored 0).
 */
import type { AgentCall, Element, LLMCall, Message, OntologyLevel, Session, ToolCall } from '@mce/core';
import { MissingJudgeInputError } from '../../judge/errors.js';
import {
  buildTranscript,
  scopeUnder,
  sessionScope,
  show,
  toolErrorText,
  type Transcript,
  type TranscriptScope,
} from '../../judge/transcript.js';
import { byStartTime } from '../deterministic/session-index.js';
import { perSession } from '../deterministic/session-cache.js';

export interface JudgedElement {
  level: OntologyLevel;
  element: Element;
  session: Session;
}

export function describeElement({ level, element }: JudgedElement): string {
  if (level === 'Session') return `session ${element.id}`;
  if (level === 'AgentCall') return `agent call ${(element as AgentCall).agentName} (${element.id})`;
  if (level === 'ToolCall') return `tool call ${(element as ToolCall).toolName} (${element.id})`;
  return `${level} ${element.id}`;
}

const llmCallScopes = new WeakMap<LLMCall, TranscriptScope>();

/**
 * The LLM and tool calls the element covers, one object per scope root (the session, an element below it, an LLM
 * call): the metrics judging an element, and every tool call of one agent, share it and its transcripts.
 */
export function scopeOf({ level, element, session }: JudgedElement): TranscriptScope {
  if (level === 'LLMCall') {
    const call = element as LLMCall;
    let scope = llmCallScopes.get(call);
    if (!scope) llmCallScopes.set(call, (scope = { llmCalls: [call], toolCalls: [] }));
    return scope;
  }
  // A tool call is judged in its agent's conversation, or the session's when it has no agent.
  const rootId = level === 'Session' ? undefined : level === 'ToolCall' ? (element as ToolCall).agentCallId || undefined : element.id;
  return rootId !== undefined
    ? perSession(session, `judgeScopeUnder:${rootId}`, (s) => scopeUnder(s, rootId))
    : perSession(session, 'judgeScopeSession', sessionScope);
}

const transcripts = new WeakMap<TranscriptScope, Map<number, Transcript>>();

/** The element's conversation within `budget` tokens (memoised per scope: several elements and metrics share one). */
export function conversationOf(target: JudgedElement, budget: number): Transcript {
  const scope = scopeOf(target);
  let byBudget = transcripts.get(scope);
  if (!byBudget) transcripts.set(scope, (byBudget = new Map()));
  let transcript = byBudget.get(budget);
  if (!transcript) byBudget.set(budget, (transcript = buildTranscript(scope, budget)));
  return transcript;
}

function messagesInOrder(scope: TranscriptScope): Message[] {
  return byStartTime(scope.llmCalls).flatMap((c) => [...c.inputMessages, ...c.outputMessages]);
}

const nonEmpty = (text: string | undefined): string | undefined => (text && text.trim() ? text.trim() : undefined);

/** The request the element answers: the user input it was given. */
export function userInputOf(target: JudgedElement): string | undefined {
  const { level, element } = target;
  if (level === 'LLMCall') {
    const users = (element as LLMCall).inputMessages.filter((m) => m.role === 'user');
    return nonEmpty(users[users.length - 1]?.content);
  }
  const own =
    level === 'Session' ? (element as Session).userInput
    : level === 'AgentCall' || level === 'MASCall' ? ((element as AgentCall).userInput ?? show((element as AgentCall).input))
    : show((element as { input?: unknown }).input);
  if (nonEmpty(own)) return nonEmpty(own);
  return nonEmpty(messagesInOrder(scopeOf(target)).find((m) => m.role === 'user')?.content);
}

/** The element's answer: the final response, else the last assistant text in its scope. */
export function responseOf(target: JudgedElement): string | undefined {
  const { level, element } = target;
  if (level === 'LLMCall') {
    return nonEmpty((element as LLMCall).outputMessages.map((m) => m.content).join('\n'));
  }
  const own =
    level === 'Session' ? (element as Session).finalResponse
    : level === 'AgentCall' || level === 'MASCall' ? ((element as AgentCall).finalResponse ?? show((element as AgentCall).output))
    : show((element as { output?: unknown }).output);
  if (nonEmpty(own)) return nonEmpty(own);
  const assistant = messagesInOrder(scopeOf(target)).filter((m) => m.role === 'assistant' && m.content.trim());
  return nonEmpty(assistant[assistant.length - 1]?.content);
}

export function requireText(value: string | undefined, metric: string, what: string, target: JudgedElement): string {
  if (value === undefined) {
    throw new MissingJudgeInputError(`${metric}: ${describeElement(target)} has no ${what} to judge`);
  }
  return value;
}

/** The conversation, failing when there is nothing in it. */
export function requireConversation(target: JudgedElement, metric: string, budget: number): Transcript {
  const transcript = conversationOf(target, budget);
  if (transcript.totalEntries === 0) {
    throw new MissingJudgeInputError(
      `${metric}: ${describeElement(target)} has an empty conversation (no LLM messages or tool calls) to judge`,
    );
  }
  return transcript;
}

/** The tool's output (its result, or its error), failing when the trace recorded none. */
export function toolOutputOf(tool: ToolCall, metric: string, target: JudgedElement): string {
  if (tool.error) return toolErrorText(tool.error);
  const output = tool.result ?? tool.output;
  if (output === undefined || output === null) {
    throw new MissingJudgeInputError(`${metric}: ${describeElement(target)} has no output (result or error) to judge`);
  }
  return show(output);
}

/** Prompt sections: `## Title` then the text. */
export function sections(parts: Array<[string, string | undefined]>): string {
  return parts
    .filter((p): p is [string, string] => p[1] !== undefined)
    .map(([title, text]) => `## ${title}\n${text}`)
    .join('\n\n');
}
