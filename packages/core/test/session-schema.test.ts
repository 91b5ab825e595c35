import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sessionJsonSchema } from '../src/ontology/json-schema.js';
import { hasControlCharacter, quoteControlCharacters, SessionSchema } from '../src/ontology/schemas.js';

describe('published session JSON Schema', () => {
  it('the committed schema/session.schema.json is the one generated from SessionSchema (run scripts/write-schema.mjs)', () => {
    const committed = readFileSync(new URL('../schema/session.schema.json', import.meta.url), 'utf8');
    expect(committed).toBe(`${JSON.stringify(sessionJsonSchema(), null, 2)}\n`);
  });

  it('requires what the session format requires and leaves defaulted lists optional', () => {
    const schema = sessionJsonSchema() as { required: string[]; properties: Record<string, { default?: unknown }> };
    expect(schema.required).toEqual(['id', 'startTime', 'endTime']);
    expect(schema.properties.llmCalls!.default).toEqual([]);
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['masCalls', 'agentCalls', 'taskCalls', 'llmCalls', 'toolCalls', 'mcpServers', 'userInput', 'finalResponse']),
    );
  });


  it('allows properties it does not define, anywhere, as the reader does (it ignores them with a warning)', () => {
    const closed: string[] = [];
    const visit = (node: unknown, at: string): void => {
      if (Array.isArray(node)) node.forEach((x, i) => visit(x, `${at}/${i}`));
      else if (typeof node === 'object' && node !== null) {
        for (const [k, v] of Object.entries(node)) {
          if ((k === 'additionalProperties' || k === 'unevaluatedProperties') && v === false) closed.push(at);
          visit(v, `${at}/${k}`);
        }
      }
    };
    const schema = sessionJsonSchema();
    visit(schema, '#');
    expect(closed).toEqual([]);
    expect(schema.description).toMatch(/Properties not defined here are allowed/);
  });
});

describe('SessionSchema references', () => {
  const call = (kind: string, id: string, extra: Record<string, unknown> = {}) => ({
    kind, id, name: id, startTime: 0, endTime: 1, status: 'ok', ...extra,
  });
  const issues = (session: Record<string, unknown>) => {
    const parsed = SessionSchema.safeParse({ id: 's', startTime: 0, endTime: 1, ...session });
    return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };

  it('accepts agent and MAS attributions that name calls of that class in the session', () => {
    expect(issues({
      masCalls: [call('MASCall', 'm')],
      agentCalls: [call('AgentCall', 'a', { masCallId: 'm', agentName: 'a' }), call('AgentCall', 'b', { masCallId: 'm', agentCallId: 'a', agentName: 'b' })],
      toolCalls: [call('ToolCall', 't', { masCallId: 'm', agentCallId: 'b', toolName: 't', parentId: 'a span never exported' })],
    })).toEqual([]);
  });

  it('refuses an attribution to an unknown call, a call of another class or the call itself, naming the field', () => {
    expect(issues({
      masCalls: [call('MASCall', 'm')],
      agentCalls: [call('AgentCall', 'a', { agentName: 'a', agentCallId: 'a' })],
      llmCalls: [call('LLMCall', 'l', { agentCallId: 'ghost', masCallId: 'a', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } })],
      toolCalls: [call('ToolCall', 't', { agentCallId: 'm', toolName: 't' })],
    })).toEqual([
      'agentCalls.0.agentCallId: "a" is the call itself',
      'llmCalls.0.agentCallId: "ghost" is not an agent call of this session',
      'llmCalls.0.masCallId: "a" is not a MAS call of this session (it is agentCalls[0])',
      'toolCalls.0.agentCallId: "m" is not an agent call of this session (it is masCalls[0])',
    ]);
  });
});

describe('SessionSchema times', () => {
  it('refuses a time no date can hold (a unit mix-up), naming the field', () => {
    const parsed = SessionSchema.safeParse({ id: 's', startTime: 9e15, endTime: 1, toolCalls: [
      { kind: 'ToolCall', id: 't', name: 't', startTime: 0, endTime: 1.7e18, status: 'ok', toolName: 't' },
    ] });
    expect(parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([
      'startTime: is out of the range of dates (epoch milliseconds, at most ±8.64e15)',
      'toolCalls.0.endTime: is out of the range of dates (epoch milliseconds, at most ±8.64e15)',
    ]);
    expect(SessionSchema.safeParse({ id: 's', startTime: 8.64e15, endTime: 8.64e15 }).success).toBe(true);
  });

  it('bounds negative times too: the range is ±8.64e15', () => {
    const parsed = SessionSchema.safeParse({ id: 's', startTime: -9e15, endTime: 1 });
    expect(parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([
      'startTime: is out of the range of dates (epoch milliseconds, at most ±8.64e15)',
    ]);
    expect(SessionSchema.safeParse({ id: 's', startTime: -8.64e15, endTime: 1 }).success).toBe(true);
  });

  it('refuses a NUL or other control character in the ids the stores key (session, call, MCP server), naming the field', () => {
    const parsed = SessionSchema.safeParse({ id: 's\u0000', startTime: 0, endTime: 1,
      toolCalls: [{ kind: 'ToolCall', id: 't\u0000x', name: 't', startTime: 0, endTime: 1, status: 'ok', toolName: 't' }],
      mcpServers: [{ name: 'm\n' }] });
    expect(parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([
      'id: must not contain a control character (U+0000–U+001F, U+007F)',
      'toolCalls.0.id: must not contain a control character (U+0000–U+001F, U+007F)',
      'mcpServers.0.name: must not contain a control character (U+0000–U+001F, U+007F)',
    ]);
  });

  it('refuses a session or call that ends before it starts, naming it; an instant (end = start) is fine', () => {
    const parsed = SessionSchema.safeParse({ id: 's', startTime: 10, endTime: 5, llmCalls: [
      { kind: 'LLMCall', id: 'l', name: 'chat', startTime: 3, endTime: 2, status: 'ok', usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
    ], toolCalls: [{ kind: 'ToolCall', id: 't', name: 't', startTime: 4, endTime: 4, status: 'ok', toolName: 't' }] });
    expect(parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([
      'endTime: 5 is before startTime 10',
      'llmCalls.0.endTime: 2 is before startTime 3',
    ]);
  });
});

describe('the control-character rule of ids, shared with trace ingestion', () => {
  it('finds U+0000–U+001F and U+007F, and quotes an id with them escaped', () => {
    expect(['a\u0000', '\tb', 'c\u001f', 'd\u007f', 'line\nbreak'].map(hasControlCharacter)).toEqual([true, true, true, true, true]);
    expect(['', 'plain', 'é\u0080\u00a0 space', '\u2028'].map(hasControlCharacter)).toEqual([false, false, false, false]);
    expect(quoteControlCharacters('a\nb\u0000"c\\d\u007f')).toBe('"a\\u000ab\\u0000\\"c\\\\d\\u007f"');
  });
});
