/**
 * The conversation a judge sees: the messages of the LLM calls in scope, each shown once (every call re-sends the
 * history), the tool calls and their results, in time order, within a token budget counted with a real tokenizer.
 * When the budget is exceeded the first entry (often the system prompt or the user's request) and the most recent
 * entries are kept, and a visible note says what was left out.
 */
import type { AgentCall, LLMCall, Message, Session, ToolCall } from '@mce/core';
import { agentIndex, byStartTime } from '../metrics/deterministic/session-index.js';
import { tokenizer } from './tokenizer.js';

export interface TranscriptScope {
  llmCalls: readonly LLMCall[];
  toolCalls: readonly ToolCall[];
  /** Agent call id → agent call: a reply is labelled with the name of the agent whose LLM call produced it. */
  agentById?: ReadonlyMap<string, Pick<AgentCall, 'agentName'>>;
}

export interface Transcript {
  text: string;
  /** Entries shown and entries in scope before truncation. */
  entries: number;
  totalEntries: number;
  /** Tokens of the transcript; an upper bound (its characters) when it was short enough not to need counting. */
  tokens: number;
  truncated: boolean;
}

interface Entry {
  at: number;
  order: number;
  text: string;
}

/** Rendering of any JSON-ish value for a prompt: strings verbatim, the rest as compact JSON. */
export function show(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

function fingerprint(m: Message): string {
  return JSON.stringify([m.role, m.content, m.name ?? '', m.toolCallId ?? '', m.toolCalls ?? []]);
}

function renderMessage(m: Message, agent?: string): string {
  const speaker = m.name ?? (m.role === 'assistant' ? agent : undefined);
  const who = speaker && m.role !== 'tool' ? `${m.role} (${speaker})` : m.role;
  const parts: string[] = [];
  if (m.role === 'tool') parts.push(`[tool result${m.name ? ` ${m.name}` : ''}${m.toolCallId ? ` #${m.toolCallId}` : ''}] ${m.content}`);
  else if (m.content.trim()) parts.push(`[${who}] ${m.content}`);
  for (const call of m.toolCalls ?? []) {
    parts.push(`[${who} → tool call ${call.name}${call.id ? ` #${call.id}` : ''}] ${show(call.arguments)}`);
  }
  return parts.join('\n');
}

/** A failed tool call's outcome as the judge sees it: `error: <type>: <message>`. */
export function toolErrorText(error: NonNullable<ToolCall['error']>): string {
  return `error: ${[error.type, error.message].filter(Boolean).join(': ')}`;
}

function renderToolCall(call: ToolCall): string {
  const outcome = call.error ? toolErrorText(call.error) : show(call.result ?? call.output);
  return `[tool call ${call.toolName}${call.toolCallId ? ` #${call.toolCallId}` : ''}] ${show(call.arguments ?? call.input)}\n[tool result ${call.toolName}] ${outcome}`;
}

/** Entries of the scope, deduplicated across LLM calls, in time order. */
function entriesOf(scope: TranscriptScope): Entry[] {
  const entries: Entry[] = [];
  const emitted = new Map<string, number>();
  const toolResultIds = new Set<string>();
  let order = 0;
  const emit = (messages: readonly Message[], at: number, agent?: string) => {
    // The k-th occurrence of a message in this call is new when fewer than k were shown before (so a repeated
    // "yes" in a later turn is still shown, while the re-sent history is not).
    const seenHere = new Map<string, number>();
    for (const m of messages) {
      const key = fingerprint(m);
      const k = (seenHere.get(key) ?? 0) + 1;
      seenHere.set(key, k);
      if (k <= (emitted.get(key) ?? 0)) continue;
      emitted.set(key, k);
      if (m.role === 'tool' && m.toolCallId) toolResultIds.add(m.toolCallId);
      const text = renderMessage(m, agent);
      if (text) entries.push({ at, order: order++, text });
    }
  };
  for (const call of byStartTime(scope.llmCalls)) {
    emit(call.inputMessages, call.startTime);
    emit(call.outputMessages, call.endTime, call.agentCallId ? scope.agentById?.get(call.agentCallId)?.agentName : undefined);
  }
  for (const tool of scope.toolCalls) {
    // A tool whose result already appears as a tool message is not shown twice.
    if (tool.toolCallId && toolResultIds.has(tool.toolCallId)) continue;
    entries.push({ at: tool.startTime, order: order++, text: renderToolCall(tool) });
  }
  return entries.sort((a, b) => a.at - b.at || a.order - b.order);
}

/** `text` cut to at most `maxTokens` tokens, with a visible note when it was cut. */
export function clipToTokens(text: string, maxTokens: number): string {
  // A token is at least one byte of UTF-8 (not one character: a rare script's character may take three tokens).
  if (utf8Bytes(text) <= maxTokens) return text;
  const { encode, decode } = tokenizer();
  const tokens = encode(text);
  if (tokens.length <= maxTokens) return text;
  // A cut inside a character's byte tokens decodes to U+FFFD: leave the partial character out instead.
  const kept = decode(tokens.slice(0, maxTokens)).replace(/\uFFFD+$/, '');
  return `${kept} […truncated: ${tokens.length - maxTokens} more tokens]`;
}

const utf8Bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * The transcript of `scope` within `budget` tokens. A single entry is clipped to a quarter of the budget; when the
 * whole is still too long, the first entry and the latest ones are kept around a note naming what was omitted.
 */
export function buildTranscript(scope: TranscriptScope, budget: number): Transcript {
  const texts = entriesOf(scope).map((e) => clipToTokens(e.text, Math.max(50, Math.floor(budget / 4))));
  // A token is at least one byte: a transcript whose UTF-8 fits the budget needs no tokenizing.
  const bytes = texts.reduce((n, t) => n + utf8Bytes(t) + 1, 0);
  if (bytes <= budget) {
    return { text: texts.join('\n'), entries: texts.length, totalEntries: texts.length, tokens: bytes, truncated: false };
  }
  const all = texts.map((text) => ({ text, tokens: tokenizer().countTokens(text) + 1 }));
  const total = all.reduce((n, e) => n + e.tokens, 0);
  if (total <= budget) {
    return { text: texts.join('\n'), entries: all.length, totalEntries: all.length, tokens: total, truncated: false };
  }
  const [first, ...rest] = all;
  const kept: typeof all = [];
  let used = (first?.tokens ?? 0) + 30; // room for the note
  for (let i = rest.length - 1; i >= 0; i--) {
    const entry = rest[i];
    if (!entry || used + entry.tokens > budget) break;
    kept.unshift(entry);
    used += entry.tokens;
  }
  const omitted = rest.length - kept.length;
  const omittedTokens = total - used + 30;
  const note = `[… ${omitted} earlier entries (${omittedTokens} tokens) omitted to fit the judge's ${budget}-token budget …]`;
  const shown = first ? [first.text, note, ...kept.map((e) => e.text)] : [note, ...kept.map((e) => e.text)];
  return { text: shown.join('\n'), entries: kept.length + (first ? 1 : 0), totalEntries: all.length, tokens: used, truncated: true };
}

/** Every element below `rootId` in the session (by span parent and enclosing agent). */
export function scopeUnder(session: Session, rootId: string): TranscriptScope {
  const parentOf = new Map<string, string | undefined>();
  for (const list of [session.masCalls, session.agentCalls, session.taskCalls, session.llmCalls, session.toolCalls]) {
    for (const e of list) parentOf.set(e.id, e.parentId);
  }
  const memo = new Map<string, boolean>();
  const under = (id: string | undefined, agentCallId?: string): boolean => {
    if (agentCallId === rootId) return true;
    const path: string[] = [];
    let current = id;
    let found = false;
    while (current !== undefined && !path.includes(current)) {
      const known = memo.get(current);
      if (known !== undefined) {
        found = known;
        break;
      }
      if (current === rootId) {
        found = true;
        break;
      }
      path.push(current);
      current = parentOf.get(current);
    }
    for (const p of path) memo.set(p, found);
    return found;
  };
  return {
    llmCalls: session.llmCalls.filter((c) => under(c.parentId, c.agentCallId)),
    toolCalls: session.toolCalls.filter((c) => under(c.parentId, c.agentCallId)),
    agentById: agentIndex(session).agentById,
  };
}

export function sessionScope(session: Session): TranscriptScope {
  return { llmCalls: session.llmCalls, toolCalls: session.toolCalls, agentById: agentIndex(session).agentById };
}
