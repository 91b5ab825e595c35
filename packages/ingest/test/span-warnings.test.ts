/**
 * Warnings about a span raised after its file was read (by the normaliser: `duplicate-span`, `unknown-parent`, the
 * `malformed-span` of a token count or an MCP server name; by the grouper: a session id it refuses) name where the span
 * is: its line in JSON Lines, and in a file that is one JSON document its line and column, found once the read is over
 * by one more read of that file for all its warnings (the reader's and the normaliser's alike).
 */
import { createRequire } from 'node:module';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { IngestWarning } from '../src/index.js';
import { readSessions, streamSessions } from '../src/index.js';
import { tempFiles } from './helpers.js';

// Both pass through: they only count how often a file is read whole and a text scanned for places.
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  return { ...fs, readFile: vi.fn(fs.readFile) };
});
const { readFile } = await import('node:fs/promises');
// The scanner as the readers load it (required when a document first has a place to report): watched where it is.
const jsonc = createRequire(import.meta.url)('jsonc-parser') as typeof import('jsonc-parser');
vi.spyOn(jsonc, 'visit');

const write = tempFiles('mce-span-warnings');
const readsOf = (file: string) => vi.mocked(readFile).mock.calls.filter(([path]) => path === file).length;
beforeEach(() => {
  vi.mocked(readFile).mockClear();
  vi.mocked(jsonc.visit).mockClear();
});

const T = '11111111111111111111111111111111';
const sid = (i: number) => `a0000000000000${String(i).padStart(2, '0')}`;
const ORPHAN_PARENT = 'ffffffffffffffff';
const RULE = 'must not contain a control character (U+0000–U+001F, U+007F)';

type Attrs = Record<string, string>;
const kv = (a: Attrs) => Object.entries(a).map(([key, value]) => ({ key, value: { stringValue: value } }));
const otlpSpan = (i: number, attrs: Attrs, extra: Record<string, unknown> = {}) => ({
  traceId: T,
  spanId: sid(i),
  name: `span-${i}`,
  startTimeUnixNano: '1000000000',
  endTimeUnixNano: '2000000000',
  attributes: kv({ 'session.id': 's', ...attrs }),
  ...extra,
});
const request = (...spans: unknown[]) => ({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
const agent = { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'a' };
const chat = { 'gen_ai.operation.name': 'chat' };
const badTokens = { ...chat, 'gen_ai.usage.input_tokens': '12abc' };
const badServer = { 'mcp.method.name': 'tools/list', 'mcp.server.name': 'evil\nserver' };

/** One span of each warning: a token count that is none, a duplicate, an orphan, an MCP server name with a newline. */
const spans = [
  otlpSpan(1, agent),
  otlpSpan(2, badTokens, { parentSpanId: sid(1) }),
  otlpSpan(2, chat, { parentSpanId: sid(1) }), // the copy dropped: the first one in the file is kept
  otlpSpan(3, chat, { parentSpanId: ORPHAN_PARENT }),
  otlpSpan(4, badServer),
];

/** The spans warned about: the kept copy of 2 (its token count), the dropped copy, the orphan, the MCP span. */
type Warned = 'kept' | 'dropped' | 'orphan' | 'server';
type Places = Record<Warned, Partial<IngestWarning>>;

/** The warnings the normaliser raises about `spans`, in its order, each with the place of its span. */
const expected = (at: Places, file: string): IngestWarning[] => [
  { code: 'duplicate-span', message: `span ${sid(2)} (span-2) appears twice; the first copy is kept`, span: sid(2), sessionId: 's', file, ...at.dropped },
  {
    code: 'unknown-parent',
    message: `1 span(s) of session s name a parent span that is not among its spans (span → missing parent: ${sid(3)} → ${ORPHAN_PARENT}): they are roots here, linked through that parent only once the store holds it as a call (another part of the session)`,
    sessionId: 's',
    file,
    ...at.orphan,
  },
  { code: 'malformed-span', message: `span ${sid(2)} (span-2): inputTokens "12abc" is not a token count; left out`, sessionId: 's', file, ...at.kept },
  { code: 'malformed-span', message: `span ${sid(4)}: MCP server name "evil\\u000aserver" (attribute mcp.server.name) ${RULE}; left out of the inventory`, span: sid(4), sessionId: 's', file, ...at.server },
];

/**
 * The id named by the span or row object that opens at `line`, `column` of a pretty-printed document (`{` there, and
 * its span id on one of the lines below): what the test checks each position against.
 */
function spanOpeningAt(text: string, line: number, column: number): string | undefined {
  const lines = text.split('\n');
  if (lines[line - 1]?.slice(column - 1) !== '{') return undefined;
  for (const below of lines.slice(line, line + 6)) {
    const id = /^\s*"(?:spanId|SpanId)": "([^"]*)"/.exec(below);
    if (id) return id[1];
  }
  return undefined;
}

describe('in a file that is one document', () => {
  it('OTLP: each warning names the line and column where its span begins; the file is read once more, for all of them', async () => {
    // A reader's warning too (a span without an end time), to show both kinds share that one read.
    const { endTimeUnixNano: _end, ...noEnd } = otlpSpan(5, chat);
    const text = JSON.stringify(request(...spans, noEnd), null, 2);
    const p = write(text);
    const r = await readSessions(p);
    const places: Places = {
      kept: { line: 34, column: 13 },
      dropped: { line: 62, column: 13 },
      orphan: { line: 84, column: 13 },
      server: { line: 106, column: 13 },
    };
    const skipped = { code: 'malformed-span', message: `skipped span ${sid(5)}: span has no end time (endTimeUnixNano)`, span: sid(5), file: p, line: 133, column: 13 };
    expect(r.warnings).toEqual([skipped, ...expected(places, p)]);
    // Each position is where that span's object opens in the text: the dropped copy of 2 is the later one.
    expect(r.warnings.map((w) => spanOpeningAt(text, w.line!, w.column!))).toEqual([sid(5), sid(2), sid(3), sid(2), sid(4)]);
    expect([readsOf(p), vi.mocked(jsonc.visit).mock.calls.length]).toEqual([2, 1]);
  });

  it('OTLP, a list of requests: the request\'s place in the list is part of the span\'s', async () => {
    const text = JSON.stringify([request(otlpSpan(1, agent)), request(otlpSpan(2, chat, { parentSpanId: ORPHAN_PARENT }))], null, 2);
    const p = write(text);
    const r = await readSessions(p);
    expect(r.warnings.map((w) => [w.code, w.line, w.column])).toEqual([['unknown-parent', 47, 15]]);
    expect(spanOpeningAt(text, 47, 15)).toBe(sid(2));
  });

  it('ClickHouse rows, a list and a {session id: rows} object: the line and column where the row begins', async () => {
    const row = (i: number, attrs: Attrs, extra: Record<string, unknown> = {}) => ({
      Timestamp: '2025-06-20 21:37:02.820000000',
      TraceId: T,
      SpanId: sid(i),
      SpanName: `span-${i}`,
      SpanAttributes: { 'session.id': 's', ...attrs },
      Duration: 1500000000,
      ...extra,
    });
    const rows = [
      row(1, agent),
      row(2, badTokens, { ParentSpanId: sid(1) }),
      row(2, chat, { ParentSpanId: sid(1) }),
      row(3, chat, { ParentSpanId: ORPHAN_PARENT }),
      row(4, badServer),
    ];
    const listText = JSON.stringify(rows, null, 2);
    const list = write(listText);
    const places: Places = {
      kept: { line: 14, column: 3 },
      dropped: { line: 27, column: 3 },
      orphan: { line: 39, column: 3 },
      server: { line: 51, column: 3 },
    };
    const r = await readSessions(list);
    expect(r.warnings).toEqual(expected(places, list));
    expect(r.warnings.map((w) => spanOpeningAt(listText, w.line!, w.column!))).toEqual([sid(2), sid(3), sid(2), sid(4)]);
    // The list is streamed row by row (not read whole), then read once more for the places of its warnings.
    expect([readsOf(list), vi.mocked(jsonc.visit).mock.calls.length]).toEqual([1, 1]);
    // Grouped by session: one level deeper (the key of its group holds the rows, and names the session).
    const groupedText = JSON.stringify({ s: rows }, null, 2);
    const grouped = write(groupedText);
    const g = await readSessions(grouped);
    expect(g.warnings.map((w) => [w.code, w.line, w.column])).toEqual([
      ['duplicate-span', 28, 5],
      ['unknown-parent', 40, 5],
      ['malformed-span', 15, 5],
      ['malformed-span', 52, 5],
    ]);
    expect(g.warnings.map((w) => spanOpeningAt(groupedText, w.line!, w.column!))).toEqual([sid(2), sid(3), sid(2), sid(4)]);
  });

  it('a document without a warning is read once and never scanned, however its spans are normalised', async () => {
    const text = JSON.stringify(request(otlpSpan(1, agent), otlpSpan(2, chat, { parentSpanId: sid(1) })), null, 2);
    const p = write(text);
    const r = await readSessions(p);
    expect([r.sessions.map((s) => s.llmCalls.length), r.warnings]).toEqual([[1], []]);
    expect(readsOf(p)).toBe(1);
    expect(jsonc.visit).not.toHaveBeenCalled();
  });

  it('streamed with a window: a document\'s session normalised while a later file is read still gets its places', async () => {
    const text = JSON.stringify(request(otlpSpan(1, chat), otlpSpan(1, chat)), null, 2);
    const doc = write(text);
    // More spans than the window, of another session: the document's session is emitted while they are read.
    const lines = Array.from({ length: 6 }, (_, i) => JSON.stringify(request({ ...otlpSpan(10 + i, chat), attributes: kv({ ...chat, 'session.id': 'other' }) })));
    const jsonl = write(`${lines.join('\n')}\n`, 'jsonl');
    const stream = streamSessions([doc, jsonl], { windowSpans: 2 });
    const ids: string[] = [];
    for await (const s of stream) ids.push(s.id);
    expect(ids).toEqual(['s', 'other']);
    expect(stream.warnings.list.map((w) => [w.code, w.file, w.line, w.column])).toEqual([['duplicate-span', doc, 28, 13]]);
    expect(spanOpeningAt(text, 28, 13)).toBe(sid(1)); // the second copy
    expect([readsOf(doc), readsOf(jsonl)]).toEqual([2, 0]);
  });

  it('a read stopped early still gives the warnings raised so far their places', async () => {
    const first = write(JSON.stringify(request(otlpSpan(1, chat), otlpSpan(1, chat)), null, 2));
    const second = write(JSON.stringify(request({ ...otlpSpan(2, chat), attributes: kv({ ...chat, 'session.id': 'other' }) })));
    const stream = streamSessions([first, second], { windowSpans: 1 });
    for await (const s of stream) {
      expect(s.id).toBe('s');
      break;
    }
    expect(stream.warnings.list.map((w) => [w.code, w.line, w.column])).toEqual([['duplicate-span', 28, 13]]);
  });
});

describe('in JSON Lines', () => {
  it('OTLP: the normaliser\'s warnings name the line of their span\'s record; the file is not read again', async () => {
    // One span per line; the duplicate on line 3, the orphan on line 4 (after a blank line: lines count as in the file).
    const text = [spans[0], spans[1], spans[2], '', spans[3], spans[4]].map((s) => (s === '' ? '' : JSON.stringify(request(s)))).join('\n');
    const p = write(text, 'jsonl');
    const r = await readSessions(p);
    expect(r.warnings).toEqual(expected({ kept: { line: 2 }, dropped: { line: 3 }, orphan: { line: 5 }, server: { line: 6 } }, p));
    expect(readsOf(p)).toBe(0);
    expect(jsonc.visit).not.toHaveBeenCalled();
  });

  it('a span the grouper refuses (its session id has a control character) is named at its line and column', async () => {
    const lines = [request(otlpSpan(1, chat)), request(otlpSpan(2, chat), otlpSpan(3, { ...chat, 'session.id': 'bad\nid' }))].map((l) => JSON.stringify(l));
    const p = write(lines.join('\n'), 'jsonl');
    const r = await readSessions(p);
    const column = lines[1]!.indexOf(`{"traceId":"${T}","spanId":"${sid(3)}"`) + 1;
    expect(column).toBe(326);
    expect(r.warnings).toEqual([
      { code: 'malformed-span', message: `skipped span ${sid(3)}: session id "bad\\u000aid" (span attribute session.id) ${RULE}`, span: sid(3), file: p, line: 2, column },
    ]);
  });

  it('ClickHouse rows, one per line: the row is its line, so the line alone names it', async () => {
    const row = (i: number, attrs: Attrs, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ Timestamp: '2025-06-20 21:37:02.820000000', TraceId: T, SpanId: sid(i), SpanName: `span-${i}`, SpanAttributes: { 'session.id': 's', ...attrs }, Duration: 1500000000, ...extra });
    const p = write([
      row(1, agent),
      row(2, badTokens, { ParentSpanId: sid(1) }),
      row(2, chat, { ParentSpanId: sid(1) }),
      row(3, chat, { ParentSpanId: ORPHAN_PARENT }),
      row(4, badServer),
      row(5, chat, { Duration: 'long' }),
    ].join('\n'), 'jsonl');
    const r = await readSessions(p);
    const skipped = { code: 'malformed-span', message: `skipped row ${sid(5)}: row has no readable Duration (nanoseconds)`, span: sid(5), file: p, line: 6 };
    expect(r.warnings).toEqual([skipped, ...expected({ kept: { line: 2 }, dropped: { line: 3 }, orphan: { line: 4 }, server: { line: 5 } }, p)]);
  });
});

describe('spans of one session in several files', () => {
  it('each warning names its own span\'s file and place, not the file the session began in', async () => {
    const doc = write(JSON.stringify(request(otlpSpan(1, agent)), null, 2));
    // Two lines: a file of one line is one document.
    const jsonl = write(`${JSON.stringify(request(otlpSpan(2, chat, { parentSpanId: sid(1) })))}\n${JSON.stringify(request(otlpSpan(3, chat, { parentSpanId: ORPHAN_PARENT })))}\n`, 'jsonl');
    const r = await readSessions([doc, jsonl]);
    expect(r.warnings.map((w) => [w.code, w.file, w.line, w.column])).toEqual([['unknown-parent', jsonl, 2, undefined]]);
    expect([readsOf(doc), readsOf(jsonl)]).toEqual([1, 0]);
  });
});
