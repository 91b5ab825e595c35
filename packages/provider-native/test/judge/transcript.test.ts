import { describe, expect, it } from 'vitest';
import { buildTranscript, clipToTokens, conversationOf, scopeOf, scopeUnder, sessionScope } from '@mce/provider-native';
import { bookingSession, FINAL_RESPONSE, USER_INPUT } from './support/conversation.js';

const count = (text: string, part: string) => text.split(part).length - 1;

describe('the transcript the judge sees', () => {
  it('shows each message once although every LLM call re-sends the history, with tool calls and results', () => {
    const t = buildTranscript(sessionScope(bookingSession()), 10_000);
    expect(t.text).toBe(
      [
        '[system] You book train tickets.',
        `[user] ${USER_INPUT}`,
        '[assistant (planner) → tool call search_trains #call_1] {"from":"Paris","to":"Lyon","time":"09:00"}',
        '[tool result search_trains #call_1] {"trains":[{"id":"TGV 6601","departs":"09:04","arrives":"11:00"}]}',
        `[assistant (planner)] ${FINAL_RESPONSE}`,
      ].join('\n'),
    );
    expect(t.truncated).toBe(false);
    expect(t.totalEntries).toBe(5);
  });

  it('shows a tool call absent from the messages from its ToolCall element', () => {
    const session = bookingSession();
    for (const call of session.llmCalls) call.inputMessages = call.inputMessages.filter((m) => m.role !== 'tool');
    const t = buildTranscript(sessionScope(session), 10_000);
    expect(t.text).toContain('[tool call search_trains #call_1] {"from":"Paris","to":"Lyon","time":"09:00"}\n[tool result search_trains] {"trains"');
  });

  it('labels each reply with the agent whose LLM call produced it, and scopes an agent to its own calls', () => {
    const session = bookingSession();
    session.agentCalls.push({ ...session.agentCalls[0]!, id: 'agent-2', agentName: 'payer' });
    const second = session.llmCalls[1]!;
    second.agentCallId = 'agent-2';
    second.parentId = 'agent-2';
    const whole = buildTranscript(sessionScope(session), 10_000).text;
    expect(whole).toContain('[assistant (planner) → tool call search_trains #call_1]');
    expect(whole).toContain(`[assistant (payer)] ${FINAL_RESPONSE}`);
    const payer = buildTranscript(scopeUnder(session, 'agent-2'), 10_000).text;
    expect(payer.split('\n')).toEqual([
      '[system] You book train tickets.',
      `[user] ${USER_INPUT}`,
      '[assistant → tool call search_trains #call_1] {"from":"Paris","to":"Lyon","time":"09:00"}',
      '[tool result search_trains #call_1] {"trains":[{"id":"TGV 6601","departs":"09:04","arrives":"11:00"}]}',
      `[assistant (payer)] ${FINAL_RESPONSE}`,
    ]);
  });

  it('keeps a repeated message of a later turn', () => {
    const session = bookingSession();
    const [first, second] = session.llmCalls;
    first!.inputMessages = [{ role: 'user', content: 'yes' }];
    first!.outputMessages = [{ role: 'assistant', content: 'Which day?' }];
    second!.inputMessages = [...first!.inputMessages, ...first!.outputMessages, { role: 'user', content: 'yes' }];
    second!.outputMessages = [{ role: 'assistant', content: 'Done.' }];
    const t = buildTranscript({ llmCalls: session.llmCalls, toolCalls: [] }, 10_000);
    expect(t.text).toBe('[user] yes\n[assistant] Which day?\n[user] yes\n[assistant] Done.');
  });

  it('keeps the first and the latest entries within the token budget, with a visible note', () => {
    const session = bookingSession();
    const call = session.llmCalls[0]!;
    call.inputMessages = Array.from({ length: 200 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message number ${i} about trains` }));
    call.outputMessages = [];
    const t = buildTranscript({ llmCalls: [call], toolCalls: [] }, 300);
    expect(t.truncated).toBe(true);
    expect(t.tokens).toBeLessThanOrEqual(300);
    const lines = t.text.split('\n');
    expect(lines[0]).toBe('[user] message number 0 about trains');
    expect(lines[1]).toMatch(/^\[… \d+ earlier entries \(\d+ tokens\) omitted to fit the judge's 300-token budget …\]$/);
    expect(lines[lines.length - 1]).toBe('[assistant] message number 199 about trains');
    expect(count(t.text, 'message number')).toBe(t.entries);
  });

  it('clips one huge entry and says so', () => {
    const session = bookingSession();
    session.toolCalls[0]!.result = 'word '.repeat(5000);
    for (const c of session.llmCalls) c.inputMessages = c.inputMessages.filter((m) => m.role !== 'tool');
    const t = buildTranscript(sessionScope(session), 2000);
    expect(t.text).toMatch(/\[…truncated: \d+ more tokens\]/);
    expect(t.truncated).toBe(false);
  });

  it('keeps to the token budget in scripts where one character is several tokens, and cuts between characters', () => {
    // 'ꙮ' (U+A66E) is three o200k tokens: 2,000 of them are 6,000 tokens although only 2,000 characters.
    const clipped = clipToTokens('ꙮ'.repeat(2000), 3000);
    expect(clipped).toMatch(/^ꙮ+ \[…truncated: 3000 more tokens\]$/);
    expect(clipped.indexOf(' ')).toBe(1000);
    // A family emoji is one character of several tokens: a cut inside it leaves it out, with no U+FFFD.
    const family = clipToTokens(`a${'👨‍👩‍👧‍👦'.repeat(40)}`, 77);
    expect(family).not.toContain('\uFFFD');
    expect(family).toMatch(/^a(👨‍👩‍👧‍👦)*[^ ]* \[…truncated: \d+ more tokens\]$/);
  });

  it('builds one scope and one transcript per scope root: the tool calls of an agent share the agent\'s', () => {
    const session = bookingSession();
    session.toolCalls.push({ ...session.toolCalls[0]!, id: 'tool-2' });
    const [a, b] = session.toolCalls.map((element) => ({ level: 'ToolCall' as const, element, session }));
    const agent = { level: 'AgentCall' as const, element: session.agentCalls[0]!, session };
    expect(scopeOf(a!)).toBe(scopeOf(b!));
    expect(scopeOf(a!)).toBe(scopeOf(agent));
    expect(conversationOf(a!, 10_000)).toBe(conversationOf(b!, 10_000));
    expect(conversationOf(a!, 10_000).text).toBe(buildTranscript(scopeUnder(session, 'agent-1'), 10_000).text);
    expect(conversationOf(a!, 500)).not.toBe(conversationOf(a!, 10_000));
  });
});
