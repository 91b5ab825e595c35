/**
 * Places named by line and column in files that are one JSON document (a pretty-printed session file, an OTLP or
 * ClickHouse export read whole): what is reported, and that a file without a fault is not read or scanned again.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { readSessions } from '../src/index.js';
import { locateInJson } from '../src/json-position.js';
import { catchError, KNOWN, tempFiles } from './helpers.js';

// Both pass through: they only count how often a file is read and a text scanned for places.
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  return { ...fs, readFile: vi.fn(fs.readFile) };
});
const { readFile } = await import('node:fs/promises');
// The scanner as the readers load it (required when a document first has a place to report): watched where it is.
const jsonc = createRequire(import.meta.url)('jsonc-parser') as typeof import('jsonc-parser');
vi.spyOn(jsonc, 'visit');

const write = tempFiles('mce-positions');
/** `examples/sessions/mcp-tools.json`, pretty-printed (two spaces): the lines below are that file's. */
const example = readFileSync(new URL('../../../examples/sessions/mcp-tools.json', import.meta.url), 'utf8');

const readsOf = (file: string) => vi.mocked(readFile).mock.calls.filter(([path]) => path === file).length;
beforeEach(() => {
  vi.mocked(readFile).mockClear();
  vi.mocked(jsonc.visit).mockClear();
});

describe('locateInJson', () => {
  const text = '{\n  "a": 1,\n  "list": [\n    { "b": "x" },\n    {\r\n      "c": [true, null]\r\n    }\n  ],\n  "a": 2\n}';

  it('finds a value, a key, and for a path that is not there the nearest enclosing value', () => {
    expect(locateInJson(text, [
      { path: ['list', 0, 'b'] },
      { path: ['list', 0, 'b'], key: true },
      { path: ['list', 1, 'c', 1] }, // CRLF line ends count as one
      { path: ['list', 1, 'missing'] },
      { path: ['nothing', 'here'] },
      { path: [] },
      undefined,
    ])).toEqual([
      { line: 4, column: 12 },
      { line: 4, column: 7 },
      { line: 6, column: 19 },
      { line: 5, column: 5 },
      { line: 1, column: 1 },
      { line: 1, column: 1 },
      undefined,
    ]);
  });

  it('finds a key written twice where JSON.parse takes its value from: the last one', () => {
    expect(locateInJson(text, [{ path: ['a'] }, { path: ['a'], key: true }])).toEqual([{ line: 9, column: 8 }, { line: 9, column: 3 }]);
  });

  it('does not scan the text when no place is asked for', () => {
    expect(locateInJson(text, [undefined, undefined])).toEqual([undefined, undefined]);
    expect(locateInJson(text, [])).toEqual([]);
    expect(jsonc.visit).not.toHaveBeenCalled();
  });
});

describe('a pretty-printed session file', () => {
  it('names the line and column of each misspelt key; the same key at several places is one warning, at the first one', async () => {
    const p = write(example.replace('"serviceName"', '"servicename"').replaceAll('"provider"', '"provder"'));
    const r = await readSessions(p);
    expect(r.sessions.map((s) => s.id)).toEqual(['dev-assistant-55']);
    expect(r.warnings).toEqual([
      { code: 'unknown-field', message: 'servicename: unknown field, ignored (did you mean "serviceName"?)', file: p, line: 6, column: 3, path: 'servicename', count: 1 },
      {
        code: 'unknown-field',
        message: 'llmCalls[0].provder: unknown field, ignored (did you mean "provider"?); 3 in all at llmCalls[*].provder',
        file: p,
        line: 56,
        column: 7,
        path: 'llmCalls[0].provder',
        count: 3,
      },
    ]);
    // Read once more and scanned once, for both warnings.
    expect([readsOf(p), vi.mocked(jsonc.visit).mock.calls.length]).toEqual([2, 1]);
  });

  it('names the line and column of a value of the wrong type deep in a call', async () => {
    const p = write(example.replace('"outputTokens": 52', '"outputTokens": "52"'));
    expect((await catchError(readSessions(p))).message).toBe(
      `${p}: not a valid session file (llmCalls.1.usage.outputTokens (line 153, column 25): Invalid input: expected number, received string)`,
    );
  });

  it('names the object that lacks a required field, and the misspelt key that is likely meant', async () => {
    const p = write(example.replace('"toolName": "create_issue"', '"toolname": "create_issue"'));
    expect((await catchError(readSessions(p))).message).toBe(
      `${p}: not a valid session file (toolCalls.1.toolName (line 389, column 5): Invalid input: expected string, received undefined; ` +
        'toolCalls[1].toolname (line 400, column 7): unknown field, ignored (did you mean "toolName"?))',
    );
  });

  it('names the misspelt fields of a session not recognised as one', async () => {
    const p = write(example.replace('"kind": "Session"', '"knd": "Session"').replace('"startTime"', '"startTme"'));
    expect((await catchError(readSessions(p))).message).toBe(
      `${p}: not a known trace format: the file holds an object with keys "knd", "id", "startTme", "endTime", "serviceName", "traceIds", "userInput", "finalResponse", "masCalls", "agentCalls", "taskCalls", "llmCalls", … (14 in all); ` +
        'as a session: knd (line 2, column 3): unknown field, ignored (did you mean "kind"?); startTme (line 4, column 3): unknown field, ignored (did you mean "startTime"?); ' +
        `${KNOWN}`,
    );
  });

  it('without a fault, is read once and never scanned for places', async () => {
    const p = write(example);
    const r = await readSessions(p);
    expect([r.sessions.length, r.warnings]).toEqual([1, []]);
    expect(readsOf(p)).toBe(1);
    expect(jsonc.visit).not.toHaveBeenCalled();
  });
});

describe('an export read whole', () => {
  const span = (spanId: string, extra: Record<string, unknown> = {}) => ({
    traceId: '11111111111111111111111111111111',
    spanId,
    name: 'chat',
    startTimeUnixNano: '1000000000',
    endTimeUnixNano: '2000000000',
    attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }],
    ...extra,
  });

  it('OTLP: a skipped span is named with the line and column where it begins, in a request and in a list of requests', async () => {
    const { endTimeUnixNano: _end, ...noEnd } = span('a000000000000002');
    const request = { resourceSpans: [{ scopeSpans: [{ spans: [span('a000000000000001'), noEnd] }] }] };
    const one = write(JSON.stringify(request, null, 2));
    const warning = (file: string, line: number, column: number) => ({
      code: 'malformed-span',
      message: 'skipped span a000000000000002: span has no end time (endTimeUnixNano)',
      span: 'a000000000000002',
      file,
      line,
      column,
    });
    expect((await readSessions(one)).warnings).toEqual([warning(one, 22, 13)]);
    const list = write(JSON.stringify([{ resourceSpans: [] }, { resource_spans: [{ scope_spans: [{ spans: [noEnd] }] }] }], null, 2));
    expect((await readSessions(list)).warnings).toEqual([warning(list, 11, 15), { code: 'empty-file', message: `${list} holds no usable span or session`, file: list }]);
  });

  it('ClickHouse: a skipped row is named with the line and column where it begins', async () => {
    const row = { Timestamp: '2025-06-20 21:37:02.820000000', TraceId: '11111111111111111111111111111111', SpanId: 'b000000000000001', SpanName: 'chat', SpanAttributes: { 'gen_ai.operation.name': 'chat' }, Duration: 1500000000 };
    const p = write(JSON.stringify({ 'session-1': [row, { ...row, SpanId: 'b000000000000002', Duration: 'long' }] }, null, 2));
    expect((await readSessions(p)).warnings).toEqual([{
      code: 'malformed-span',
      message: 'skipped row b000000000000002: row has no readable Duration (nanoseconds)',
      span: 'b000000000000002',
      file: p,
      line: 13,
      column: 5,
    }]);
  });

  it('without a skipped span, is read once and never scanned for places', async () => {
    const p = write(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span('a000000000000001')] }] }] }, null, 2));
    expect((await readSessions(p)).warnings).toEqual([]);
    expect(readsOf(p)).toBe(1);
    expect(jsonc.visit).not.toHaveBeenCalled();
  });
});
