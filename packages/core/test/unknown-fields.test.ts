import { describe, expect, it } from 'vitest';
import { MAX_UNKNOWN_FIELD_PLACES, UnknownFields } from '../src/ontology/unknown-fields.js';
import { SessionSchema } from '../src/ontology/schemas.js';

const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 2 };
const llm = (id: string, extra: Record<string, unknown> = {}) => ({ kind: 'LLMCall', id, name: 'chat', startTime: 0, endTime: 1, usage, ...extra });
const tool = (id: string, extra: Record<string, unknown> = {}) => ({ kind: 'ToolCall', id, name: 't', startTime: 0, endTime: 1, toolName: 't', ...extra });
const session = (extra: Record<string, unknown> = {}) => ({ id: 's', startTime: 0, endTime: 1, ...extra });
const messages = (doc: unknown) => new UnknownFields().check(doc).notes().map((n) => n.message);

describe('unknown fields of a session document', () => {
  it('a valid session with every object of the format has none', () => {
    const doc = session({
      kind: 'Session', serviceName: 'svc', appName: 'app', traceIds: ['t'], userInput: 'q', finalResponse: 'a',
      masCalls: [{ kind: 'MASCall', id: 'm', name: 'wf', startTime: 0, endTime: 1, status: 'ok', workflowName: 'wf', error: { type: 'E', message: 'm' } }],
      agentCalls: [{
        kind: 'AgentCall', id: 'a', masCallId: 'm', name: 'agent', startTime: 0, endTime: 1, agentName: 'agent', agentId: 'x',
        mcpServers: [{ name: 'srv', transport: 'stdio', tools: [{ name: 't', description: 'd', inputSchema: { type: 'object' } }],
          resources: [{ uri: 'u', name: 'n', description: 'd', mimeType: 'text/plain' }],
          prompts: [{ name: 'p', description: 'd', arguments: [{ name: 'x', description: 'd', required: true }] }] }],
      }],
      taskCalls: [{ kind: 'TaskCall', id: 'k', name: 'task', startTime: 0, endTime: 1, taskName: 'task' }],
      llmCalls: [llm('l', {
        operation: 'chat', requestModel: 'm', responseModel: 'm', provider: 'p', finishReasons: ['stop'],
        inputMessages: [{ role: 'user', content: 'hi', name: 'u' }],
        outputMessages: [{ role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 't', arguments: { q: 1 } }] }, { role: 'tool', content: 'r', toolCallId: 'c' }],
        toolDefinitions: [{ name: 't', description: 'd', inputSchema: { type: 'object' } }],
      })],
      toolCalls: [tool('t', { toolCallId: 'c', arguments: { q: 1 }, result: { r: 2 }, definition: { name: 't' }, mcp: { server: 'srv', kind: 'tool', method: 'tools/call', uri: 'u' } })],
      mcpServers: [{ name: 'srv', tools: [], resources: [], prompts: [] }],
      attributes: { 'service.name': 'svc' },
    });
    expect(SessionSchema.safeParse(doc).success).toBe(true);
    expect(messages(doc)).toEqual([]);
  });

  it('names typos at every depth with their JSON path and the field likely meant', () => {
    const doc = session({
      llmcalls: [],
      agentCalls: [{
        kind: 'AgentCall', id: 'a', name: 'agent', startTime: 0, endTime: 1, agentName: 'agent',
        mcpServers: [{ name: 'srv', resources: [{ uri: 'u', mimetype: 'text/plain' }], prompts: [{ name: 'p', arguments: [{ name: 'x', requierd: true }] }] }],
      }],
      llmCalls: [
        llm('l0'),
        llm('l1', {
          startTme: 5,
          usage: { ...usage, inputTokns: 3 },
          inputMessages: [{ role: 'user', content: 'hi' }, { rol: 'user', content: 'hi', role: 'user' }],
          outputMessages: [{ role: 'assistant', content: '', toolCalls: [{ name: 't', argumnets: {} }] }],
          toolDefinitions: [{ name: 't', descripton: 'd' }],
        }),
      ],
      toolCalls: [tool('t', { error: { type: 'E', mesage: 'm' }, mcp: { kind: 'tool', sever: 'srv' }, definition: { name: 't', input_schema: {} } })],
      mcpServers: [{ name: 'srv', tools: [{ name: 't', inputSchema: {}, annotations: {} }] }],
    });
    expect(messages(doc)).toEqual([
      'llmcalls: unknown field, ignored (did you mean "llmCalls"?)',
      'agentCalls[0].mcpServers[0].resources[0].mimetype: unknown field, ignored (did you mean "mimeType"?)',
      'agentCalls[0].mcpServers[0].prompts[0].arguments[0].requierd: unknown field, ignored (did you mean "required"?)',
      // In the document's order: `usage` is written before `startTme` (llm() puts it there).
      'llmCalls[1].usage.inputTokns: unknown field, ignored (did you mean "inputTokens"?)',
      'llmCalls[1].startTme: unknown field, ignored (did you mean "startTime"?)',
      'llmCalls[1].inputMessages[1].rol: unknown field, ignored (did you mean "role"?)',
      'llmCalls[1].outputMessages[0].toolCalls[0].argumnets: unknown field, ignored (did you mean "arguments"?)',
      'llmCalls[1].toolDefinitions[0].descripton: unknown field, ignored (did you mean "description"?)',
      'toolCalls[0].error.mesage: unknown field, ignored (did you mean "message"?)',
      'toolCalls[0].mcp.sever: unknown field, ignored (did you mean "server"?)',
      'toolCalls[0].definition.input_schema: unknown field, ignored (did you mean "inputSchema"?)',
      'mcpServers[0].tools[0].annotations: unknown field, ignored',
    ]);
    const [first] = new UnknownFields().check(doc).notes();
    expect(first).toEqual({ message: 'llmcalls: unknown field, ignored (did you mean "llmCalls"?)', count: 1, path: 'llmcalls', keys: ['llmcalls'], field: 'llmcalls', suggestion: 'llmCalls' });
  });

  it('does not look into the extension points: attributes, input, output, arguments, result, inputSchema', () => {
    const free = { anything: 1, nested: { deeper: [{ startTme: 1 }] } };
    const doc = session({
      attributes: free,
      masCalls: [{ kind: 'MASCall', id: 'm', name: 'wf', startTime: 0, endTime: 1, input: free, output: free, attributes: free }],
      llmCalls: [llm('l', {
        outputMessages: [{ role: 'assistant', content: '', toolCalls: [{ name: 't', arguments: free }] }],
        toolDefinitions: [{ name: 't', inputSchema: free }],
      })],
      toolCalls: [tool('t', { arguments: free, result: free, definition: { name: 't', inputSchema: free } })],
      mcpServers: [{ name: 'srv', tools: [{ name: 't', inputSchema: free }] }],
    });
    expect(messages(doc)).toEqual([]);
  });

  it('the top level of a sessions list is checked, and paths start at the list', () => {
    const doc = { exportedAt: 'today', sessions: [session(), session({ id: 's2', toolCalls: [tool('t', { durationMs: 1 })] })] };
    expect(messages(doc)).toEqual([
      'exportedAt: unknown field, ignored',
      'sessions[1].toolCalls[0].durationMs: unknown field, ignored',
    ]);
    // A session marked as one is a session, even with a `sessions` field of its own.
    expect(messages(session({ kind: 'Session', sessions: [] }))).toEqual(['sessions: unknown field, ignored']);
  });

  it('groups the same field at the same place: 100,000 calls with one stray key give one note with a count', () => {
    const llmCalls = Array.from({ length: 100_000 }, (_, i) => llm(`l${i}`, { startTme: i }));
    const notes = new UnknownFields().check({ sessions: [session({ llmCalls: llmCalls.slice(0, 40_000) }), session({ id: 's2', llmCalls: llmCalls.slice(40_000) })] }).notes();
    expect(notes).toEqual([{
      message: 'sessions[0].llmCalls[0].startTme: unknown field, ignored (did you mean "startTime"?); 100000 in all at sessions[*].llmCalls[*].startTme',
      count: 100_000,
      path: 'sessions[0].llmCalls[0].startTme',
      keys: ['sessions', 0, 'llmCalls', 0, 'startTme'],
      field: 'startTme',
      suggestion: 'startTime',
    }]);
  });

  it(`lists at most ${MAX_UNKNOWN_FIELD_PLACES} places, then counts the rest`, () => {
    const extra = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`custom${i}`, i]));
    const tally = new UnknownFields().check(session({ toolCalls: [tool('a', extra), tool('b', extra)] }));
    const notes = tally.notes();
    expect(notes).toHaveLength(MAX_UNKNOWN_FIELD_PLACES + 1);
    expect(notes[0]).toMatchObject({ message: 'toolCalls[0].custom0: unknown field, ignored; 2 in all at toolCalls[*].custom0', count: 2 });
    expect(notes.at(-1)).toEqual({ message: 'and 10 more unknown field(s) at other places, ignored', count: 10 });
    expect([tally.total, tally.omitted]).toEqual([50, 10]);
  });

  it(`tallies added together keep at most ${MAX_UNKNOWN_FIELD_PLACES} places, and count the fields past it`, () => {
    const extra = (from: number, n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`custom${from + i}`, i]));
    const file = new UnknownFields();
    file.add(new UnknownFields().check(session(extra(0, 25)), 1));
    expect([file.list.length, file.omitted, file.total]).toEqual([MAX_UNKNOWN_FIELD_PLACES, 5, 25]);
    // A place already listed is counted there; new places past the cap, with the other tally's own, are counted apart.
    file.add(new UnknownFields().check(session({ ...extra(0, 1), ...extra(30, 2) }), 2));
    expect([file.list.length, file.omitted, file.total]).toEqual([MAX_UNKNOWN_FIELD_PLACES, 7, 28]);
    expect(file.list[0]).toMatchObject({ field: 'custom0', count: 2, line: 1 });
    expect(file.notes().at(-1)).toEqual({ message: 'and 7 more unknown field(s) at other places, ignored', count: 7 });
  });

  it('keys that are no identifier are quoted; __proto__, constructor and toString are fields like others', () => {
    const doc = JSON.parse('{"id":"s","startTime":0,"endTime":1,"start time":1,"__proto__":{"x":1},"constructor":1,"toString":2}') as unknown;
    expect(messages(doc)).toEqual([
      '["start time"]: unknown field, ignored (did you mean "startTime"?)',
      '__proto__: unknown field, ignored',
      'constructor: unknown field, ignored',
      'toString: unknown field, ignored',
    ]);
    // The keys of the path, for a reader to find the field in the text, are the names as written.
    expect(new UnknownFields().check(doc).list.map((f) => f.keys)).toEqual([['start time'], ['__proto__'], ['constructor'], ['toString']]);
  });

  it('a value of the wrong type is left to the schema (not walked into)', () => {
    expect(messages(session({ llmCalls: { startTme: 1 }, usage: 3, toolCalls: [null, 'x', [{ a: 1 }]], mcpServers: [{ name: 's', tools: { x: 1 } }] }))).toEqual([
      'usage: unknown field, ignored',
    ]);
    expect(messages([session({ x: 1 })])).toEqual([]);
    expect(messages('text')).toEqual([]);
  });

  it('tallies of several documents add up, keeping the line of the first one', () => {
    const file = new UnknownFields();
    file.add(new UnknownFields().check(session(), 1));
    file.add(new UnknownFields().check(session({ llmCalls: [llm('a', { startTme: 1 })] }), 2));
    file.add(new UnknownFields().check(session({ llmCalls: [llm('a', { startTme: 1 }), llm('b', { startTme: 1 })], tags: [] }), 3));
    expect(file.notes()).toEqual([
      { message: 'llmCalls[0].startTme: unknown field, ignored (did you mean "startTime"?); 3 in all at llmCalls[*].startTme', count: 3, path: 'llmCalls[0].startTme', keys: ['llmCalls', 0, 'startTme'], field: 'startTme', suggestion: 'startTime', line: 2 },
      { message: 'tags: unknown field, ignored', count: 1, path: 'tags', keys: ['tags'], field: 'tags', line: 3 },
    ]);
  });
});
