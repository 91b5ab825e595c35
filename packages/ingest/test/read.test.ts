/** Format detection, errors that name the file (and line), tolerance, session ids, streaming windows, export round trip. */
import { chmodSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import type { Session } from '@mce/core';
import { detectFormat, IngestError, readSessions, streamSessions, writeSessionsFile } from '../src/index.js';
import { catchError, dataFile, fixture, KNOWN } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'mce-ingest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const write = (content: string, ext = 'json') => {
  const p = join(dir, `f${n++}.${ext}`);
  writeFileSync(p, content);
  return p;
};

type Attr = Record<string, unknown>;
const kv = (a: Attr) => Object.entries(a).map(([key, v]) => ({ key, value: typeof v === 'number' ? { intValue: String(v) } : { stringValue: String(v) } }));
function span(traceId: string, spanId: string, attrs: Attr, extra: Attr = {}) {
  return { traceId, spanId, name: String(attrs.name ?? spanId), startTimeUnixNano: '1000000000', endTimeUnixNano: '2000000000', attributes: kv(attrs), ...extra };
}
const req = (...spans: unknown[]) => ({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
const T1 = '11111111111111111111111111111111';
const T2 = '22222222222222222222222222222222';
const sid = (i: number) => `a0000000000000${String(i).padStart(2, '0')}`;
/** The column where the first span of `req(…)` begins on its line: just inside `"spans":[`. */
const FIRST_SPAN_COLUMN = JSON.stringify(req()).indexOf('[]') + 2;

describe('format detection', () => {
  it('detects each format from content, not from the file name', async () => {
    expect(await detectFormat(fixture('otlp-dialects/raw.json'))).toBe('otlp-json');
    expect(await detectFormat(fixture('clickhouse-otel-traces/langgraph_supervisor_research.json'))).toBe('clickhouse');
    expect(await detectFormat(fixture('clickhouse-otel-traces/langgraph_single_agent_tool.json'))).toBe('clickhouse');
    expect(await detectFormat(dataFile('multi-agent/genai.jsonl'))).toBe('otlp-jsonl');
    const renamed = write(JSON.stringify(req(span(T1, sid(1), { 'gen_ai.operation.name': 'chat' }))) + '\n' + JSON.stringify(req(span(T1, sid(2), {}))) + '\n', 'json');
    expect(await detectFormat(renamed)).toBe('otlp-jsonl');
    const session = write(JSON.stringify({ id: 's', startTime: 0, endTime: 1 }), 'txt');
    expect(await detectFormat(session)).toBe('session-json');
  });

  it('a file in no known format, invalid JSON, or an empty file is an IngestError naming the file', async () => {
    const unknown = write('{"hello": "world"}');
    const e1 = await catchError(readSessions(unknown));
    expect(e1.file).toBe(unknown);
    expect(e1.message).toContain(unknown);
    expect(e1.message).toBe(`${unknown}: not a known trace format: the file holds an object with keys "hello"; ${KNOWN}`);
    expect([e1.line, e1.column]).toEqual([undefined, undefined]);
    const bad = write('{"resourceSpans": [');
    expect((await catchError(readSessions(bad))).message).toMatch(/invalid JSON/);
    expect((await catchError(readSessions(write('  \n')))).message).toMatch(/empty/);
    expect((await catchError(readSessions(join(dir, 'missing.json')))).message).toMatch(/cannot open/);
  });

  it('reads several files as one stream: a session split across them is one session, its calls linked across files', async () => {
    const agent = span(T1, sid(1), { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'a', 'session.id': 'split' });
    const chat = (i: number) => span(T1, sid(i), { 'gen_ai.operation.name': 'chat' }, { parentSpanId: sid(1) });
    const other = span(T2, sid(9), { 'gen_ai.operation.name': 'chat', 'session.id': 'other' });
    const first = write(JSON.stringify(req(agent, chat(2))) + '\n' + JSON.stringify(req(other)) + '\n', 'jsonl');
    const second = write(JSON.stringify(req(chat(3), chat(4))), 'json'); // no session key: it joins by trace
    const read = await readSessions([first, second]);
    expect(read.warnings).toEqual([]);
    expect(read.sessions.map((x) => [x.id, x.llmCalls.map((c) => [c.id, c.agentCallId])])).toEqual([
      ['split', [[sid(2), sid(1)], [sid(3), sid(1)], [sid(4), sid(1)]]],
      ['other', [[sid(9), undefined]]],
    ]);
    // Streamed with a window, the same holds when the parts are closer than the window…
    const near = streamSessions([first, second], { windowSpans: 10 });
    const nearIds: string[] = [];
    for await (const x of near) nearIds.push(`${x.id}:${x.llmCalls.length}`);
    expect([nearIds, near.warnings.counts]).toEqual([['split:3', 'other:1'], {}]);
    // …and a part further away than the window is a part of its own, said so.
    const gap = write(Array.from({ length: 5 }, (_, i) => JSON.stringify(req(span(T2, sid(20 + i), { 'gen_ai.operation.name': 'chat', 'session.id': 'other' })))).join('\n'), 'jsonl');
    const far = streamSessions([first, gap, second], { windowSpans: 3 });
    const farIds: string[] = [];
    for await (const x of far) farIds.push(`${x.id}:${x.llmCalls.length}`);
    expect(farIds).toEqual(['split:1', 'other:6', 'split:2']);
    expect(far.warnings.counts).toEqual({ 'session-reemitted': 1, 'unknown-parent': 1 });
  });

  it('a read of several files keeps first-seen order, names the file of each span in its warnings, and hands over the files before a bad one', async () => {
    const traced = write(JSON.stringify(req(span(T1, sid(1), { 'gen_ai.operation.name': 'chat', 'session.id': 'traced' }))));
    const whole = write(JSON.stringify({ kind: 'Session', id: 'whole', startTime: 0, endTime: 1, traceIds: [], masCalls: [], agentCalls: [], taskCalls: [], llmCalls: [], toolCalls: [], mcpServers: [] }));
    expect((await readSessions([traced, whole])).sessions.map((x) => x.id)).toEqual(['traced', 'whole']);
    expect((await readSessions([whole, traced])).sessions.map((x) => x.id)).toEqual(['whole', 'traced']);
    // A trace's spans that wait for their session id keep their place once a later file names it.
    const unnamed = write(JSON.stringify(req(span(T2, sid(7), { 'gen_ai.operation.name': 'chat' }))) + '\n', 'jsonl');
    const named = write(JSON.stringify(req(span(T2, sid(8), { 'gen_ai.operation.name': 'chat', 'session.id': 'late-key' }))) + '\n', 'jsonl');
    const ordered = await readSessions([unnamed, whole, named]);
    expect(ordered.sessions.map((x) => [x.id, x.llmCalls.length])).toEqual([['late-key', 2], ['whole', 0]]);
    // A bad token count in the second file is reported there, though its session began in the first.
    const later = write(JSON.stringify(req(span(T1, sid(2), { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': '12abc' }))));
    const warned = await readSessions([traced, later]);
    expect(warned.warnings.map((w) => [w.code, w.file])).toEqual([['malformed-span', later]]);
    // A bad file: the sessions of the files before it come out, then its error.
    const bad = write('not json at all');
    const seen: string[] = [];
    const stream = streamSessions([traced, bad]);
    const failure = await (async () => {
      try {
        for await (const x of stream) seen.push(x.id);
      } catch (error) {
        return error as IngestError;
      }
      return undefined;
    })();
    expect(seen).toEqual(['traced']);
    expect(failure).toBeInstanceOf(IngestError);
    expect(failure?.message).toContain(bad);
  });

  it('warns, once per session, about spans whose parent is not among the spans at hand (another file, say)', async () => {
    const agent = span(T1, sid(1), { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'a', 'session.id': 'split' });
    const chat = (i: number) => span(T1, sid(i), { 'gen_ai.operation.name': 'chat', 'session.id': 'split' }, { parentSpanId: sid(1) });
    const whole = await readSessions(write(JSON.stringify(req(agent, chat(2)))));
    expect(whole.warnings).toEqual([]);
    expect(whole.sessions[0]?.llmCalls[0]?.agentCallId).toBe(sid(1));
    const part = await readSessions(write(JSON.stringify(req(chat(2), chat(3)))));
    expect(part.sessions[0]?.llmCalls[0]?.agentCallId).toBeUndefined(); // its agent is in the other file
    expect(part.warnings.map((w) => [w.code, w.sessionId, w.message])).toEqual([
      [
        'unknown-parent',
        'split',
        `2 span(s) of session split name a parent span that is not among its spans (span → missing parent: ${sid(2)} → ${sid(1)}, ${sid(3)} → ${sid(1)}): they are roots here, linked through that parent only once the store holds it as a call (another part of the session)`,
      ],
    ]);
  });

  it('says so when a token count is there but is no count, and leaves it out', async () => {
    const attrs = { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.output_tokens': 7 };
    const bad = { key: 'gen_ai.usage.input_tokens', value: { intValue: '12abc' } };
    const s0 = span(T1, sid(1), attrs);
    const r = await readSessions(write(JSON.stringify(req({ ...s0, attributes: [...s0.attributes, bad] }))));
    expect(r.sessions[0]?.llmCalls[0]?.usage).toMatchObject({ inputTokens: 0, outputTokens: 7, totalTokens: 7 });
    expect(r.warnings.map((w) => [w.code, w.message])).toEqual([
      ['malformed-span', `span ${sid(1)} (${sid(1)}): inputTokens "12abc" is not a token count; left out`],
    ]);
  });

  it('invalid JSON in a whole-file document names the line and column of the fault', async () => {
    const p = write('{\n  "resourceSpans": [],\n  "extra": 1\n  "more": 2\n}\n');
    const e = await catchError(readSessions(p));
    expect([e.line, e.column]).toEqual([4, 3]);
    expect(e.message).toMatch(new RegExp(`^${p.replace(/[.]/g, '\\.')}:4: invalid JSON: .* \\(line 4, column 3\\)$`));
  });

  it('writeSessionsFile replaces the file behind a link, and an error of the sessions themselves is not a write error', async () => {
    const target = write('{}');
    const link = join(dir, `link-${n++}.json`);
    symlinkSync(target, link);
    const session = (await readSessions(dataFile('multi-agent/genai.jsonl'))).sessions[0]!;
    expect(await writeSessionsFile(link, [session])).toBe(1);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect((JSON.parse(readFileSync(target, 'utf8')) as { sessions: Session[] }).sessions.map((x) => x.id)).toEqual([session.id]);
    async function* failing(): AsyncGenerator<Session> {
      yield session;
      throw new TypeError('store connection lost');
    }
    const out = join(dir, `out-${n++}.json`);
    await expect(writeSessionsFile(out, failing())).rejects.toThrow(new TypeError('store connection lost'));
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.endsWith('.partial'))).toEqual([]);
  });

  it('writeSessionsFile writes beside the file under a name nobody can plant a link at, and keeps the file\'s mode', async () => {
    const out = write('{"sessions":[]}');
    chmodSync(out, 0o600);
    const victim = write('keep me');
    // The name the export used to write through: a link planted there must not be followed.
    symlinkSync(victim, `${out}.${process.pid}.partial`);
    const session = (await readSessions(dataFile('multi-agent/genai.jsonl'))).sessions[0]!;
    expect(await writeSessionsFile(out, [session])).toBe(1);
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
    expect((JSON.parse(readFileSync(out, 'utf8')) as { sessions: Session[] }).sessions.map((x) => x.id)).toEqual([session.id]);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).filter((f) => f.endsWith('.partial') && !lstatSync(join(dir, f)).isSymbolicLink())).toEqual([]);
  });

  it('names the line and column where V8\'s message gives no position (an unexpected token)', async () => {
    const p = write('{\n  "resourceSpans": [,,]\n}\n');
    const e = await catchError(readSessions(p));
    expect([e.line, e.column]).toEqual([2, 21]);
    expect(e.message).toMatch(/^.*:2: invalid JSON: Unexpected token ','.* \(line 2, column 21\)$/s);
  });

  it('skips an invalid JSON line with a warning naming its line and column, and keeps the lines around it', async () => {
    const line = (i: number) => JSON.stringify(req(span(T1, sid(i), { 'gen_ai.operation.name': 'chat' })));
    // A line cut off mid-write, one with a stray comma (the 9th character), and the last line cut off.
    const p = write(`${line(1)}\n{"resourceSpans": [\n${line(2)}\n{"a": 1,, "b": 2}\n{"resourceSp`, 'jsonl');
    const r = await readSessions(p);
    expect(r.sessions.flatMap((s) => s.llmCalls.map((c) => c.id))).toEqual([sid(1), sid(2)]);
    expect(r.warnings.map((w) => [w.code, w.line, w.column, w.message.split(':').slice(0, 2).join(':')])).toEqual([
      ['malformed-line', 2, 20, 'skipped line: invalid JSON'], // where the line ends
      ['malformed-line', 4, 9, 'skipped line: invalid JSON'],
      ['malformed-line', 5, 13, 'skipped line: invalid JSON'],
    ]);
  });

  it('a forced format must fit the content', async () => {
    const p = fixture('otlp-dialects/raw.json');
    expect((await readSessions(p, { format: 'otlp-json' })).sessions).toHaveLength(1);
    expect((await catchError(readSessions(p, { format: 'clickhouse' }))).message).toMatch(/content is not clickhouse/);
    expect((await catchError(readSessions(p, { format: 'session-json' }))).message).toMatch(/not a valid session file/);
  });

  it('an invalid session file names the file and the offending fields with their lines, for one session and for a sessions list', async () => {
    const one = write(JSON.stringify({ kind: 'Session', id: 's', startTime: 0, endTime: 1, traceIds: 'nope' }, null, 2));
    const e1 = await catchError(readSessions(one));
    expect(e1.file).toBe(one);
    expect(e1.message).toBe(`${one}: not a valid session file (traceIds (line 6, column 15): Invalid input: expected array, received string)`);
    const list = write(JSON.stringify({ sessions: [{ id: 's1', startTime: 0, endTime: 1 }, { id: 's2', startTime: 'late', endTime: 1 }] }, null, 2));
    const e2 = await catchError(readSessions(list));
    expect(e2.file).toBe(list);
    expect(e2.message).toBe(`${list}: not a valid session file (sessions.1.startTime (line 10, column 20): Invalid input: expected number, received string)`);
    // The same for a JSON Lines record (a skipped line), whose line is the warning's: the column is the field's on it.
    const second = JSON.stringify({ kind: 'Session', id: 's', startTime: 0, endTime: 1, traceIds: 'nope' });
    const lines = write(`${JSON.stringify({ id: 's1', startTime: 0, endTime: 1 })}\n${second}\n`, 'jsonl');
    const r = await readSessions(lines);
    expect(r.sessions.map((s) => s.id)).toEqual(['s1']);
    const column = second.indexOf('"nope"') + 1;
    expect(column).toBe(65);
    expect(r.warnings).toEqual([{
      code: 'malformed-line',
      message: `skipped line: not a valid session file (traceIds (line 2, column ${column}): Invalid input: expected array, received string)`,
      file: lines,
      line: 2,
      column,
    }]);
  });
});

describe('tolerance and warnings', () => {
  it('reads base64 and Buffer ids, integer enums, Long timestamps, missing resource and status', async () => {
    const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');
    const doc = {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: b64(T1),
                  spanId: { type: 'Buffer', data: [0xa0, 0, 0, 0, 0, 0, 0, 1] },
                  name: 'chat',
                  kind: 3,
                  startTimeUnixNano: { low: 1000000, high: 0 },
                  endTimeUnixNano: 3000000,
                  attributes: [
                    { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
                    { key: 'gen_ai.usage.input_tokens', value: { intValue: { low: 10, high: 0 } } },
                    { key: 'gen_ai.usage.output_tokens', value: { intValue: 5 } },
                    { key: 'gen_ai.response.finish_reasons', value: { arrayValue: { values: [{ stringValue: 'stop' }] } } },
                    { key: 'gen_ai.input.messages', value: { arrayValue: { values: [{ kvlistValue: { values: [{ key: 'role', value: { stringValue: 'user' } }, { key: 'content', value: { stringValue: 'hi' } }] } }] } } },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const { sessions, warnings } = await readSessions(write(JSON.stringify(doc)));
    expect(warnings).toEqual([]);
    const c = sessions[0]!.llmCalls[0]!;
    expect(sessions[0]!.id).toBe(T1);
    expect(c).toMatchObject({ id: 'a000000000000001', traceId: T1, startTime: 1, endTime: 3, status: 'unset', finishReasons: ['stop'] });
    expect(c.usage).toMatchObject({ inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    expect(c.inputMessages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('a malformed span is skipped with a counted warning that names it; the rest of the file is kept', async () => {
    const doc = req(
      span(T1, sid(1), { 'gen_ai.operation.name': 'chat' }),
      { ...span(T1, sid(2), {}), traceId: undefined, name: 'orphan' },
      { ...span(T1, 'zz-not-hex', {}), name: 'badid' },
      'not a span',
      span(T1, sid(3), { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'x' }),
    );
    const r = await readSessions(write(JSON.stringify(doc)));
    expect(r.warningCounts).toEqual({ 'malformed-span': 3 });
    expect(r.warnings.map((w) => w.span)).toEqual([sid(2), 'zz-not-hex', '(unnamed)']);
    expect(r.warnings[0]!.message).toMatch(/no trace id/);
    expect(r.sessions[0]!.llmCalls).toHaveLength(1);
    expect(r.sessions[0]!.toolCalls).toHaveLength(1);
  });

  it('a file that holds no usable span or session is read as empty, with an empty-file warning naming it', async () => {
    const files = ['[]', '{"resourceSpans": []}', '{"sessions": []}', JSON.stringify(req({ ...span(T1, sid(1), {}), traceId: undefined }))].map((c) => write(c));
    const full = write(JSON.stringify(req(span(T1, sid(2), { 'gen_ai.operation.name': 'chat' }))));
    const r = await readSessions([...files, full]);
    expect(r.sessions.map((x) => x.llmCalls.length)).toEqual([1]);
    expect(r.warnings.filter((w) => w.code === 'empty-file').map((w) => [w.file, w.message])).toEqual(files.map((f) => [f, `${f} holds no usable span or session`]));
    expect(r.warningCounts).toEqual({ 'empty-file': 4, 'malformed-span': 1 });
  });

  it('a span without a real start or end time (missing, or 0: proto3 unset) is skipped, not given a made-up time', async () => {
    const agent = span(T1, sid(1), { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'a' });
    const chat = (i: number, times: Attr) => ({ ...span(T1, sid(i), { 'gen_ai.operation.name': 'chat' }), parentSpanId: sid(1), ...times });
    const doc = req(
      agent,
      chat(2, {}),
      chat(3, { endTimeUnixNano: undefined }),
      chat(4, { startTimeUnixNano: '0', endTimeUnixNano: '0' }),
      chat(5, { endTimeUnixNano: 0 }),
      chat(6, { startTimeUnixNano: undefined }),
      chat(7, { endTimeUnixNano: '99999999999999999999999' }),
    );
    const r = await readSessions(write(JSON.stringify(doc)));
    expect(r.warnings.map((w) => [w.code, w.span])).toEqual([3, 4, 5, 6, 7].map((i) => ['malformed-span', sid(i)]));
    expect(r.warnings.map((w) => w.message.replace(/^skipped span \S+: /, ''))).toEqual([
      'span has no end time (endTimeUnixNano)',
      'span start time is 0, i.e. unset (startTimeUnixNano)',
      'span end time is 0, i.e. unset (endTimeUnixNano)',
      'span has no start time (startTimeUnixNano)',
      'span time is out of the range of dates (startTimeUnixNano / endTimeUnixNano)',
    ]);
    const session = r.sessions[0]!;
    expect(session.llmCalls.map((c) => c.id)).toEqual([sid(2)]);
    // The session spans the real times only: 1 s, not 56 years.
    expect([session.startTime, session.endTime]).toEqual([1000, 2000]);
  });

  it('a span that ends before it starts is read as a 0 ms call at its start, and a malformed span\'s warning names its line', async () => {
    const backwards = req({ ...span(T1, sid(1), { 'gen_ai.operation.name': 'chat' }), startTimeUnixNano: '3000000000', endTimeUnixNano: '2000000000' });
    const broken = req({ ...span(T1, sid(2), { 'gen_ai.operation.name': 'chat' }), endTimeUnixNano: undefined });
    const r = await readSessions(write(`${JSON.stringify(backwards)}\n\n${JSON.stringify(broken)}\n`, 'jsonl'));
    const call = r.sessions[0]!.llmCalls[0]!;
    expect([call.id, call.startTime, call.endTime]).toEqual([sid(1), 3000, 3000]);
    expect(r.warnings.map((w) => [w.code, w.span, w.line])).toEqual([['malformed-span', sid(2), 3]]);
  });

  it('a span whose span, trace or parent id has a control character is skipped, the warning naming line and field', async () => {
    const chat = (extra: Attr) => ({ ...span(T1, sid(1), { 'gen_ai.operation.name': 'chat' }), ...extra });
    const lines = [
      req(chat({})),
      req(chat({ spanId: 'a00000000000\n002' })),
      req(chat({ spanId: undefined, span_id: 'a0000000000000\u00003' })),
      req(chat({ spanId: sid(4), traceId: `${T1.slice(0, 31)}\u007f` })),
      req(chat({ spanId: sid(5), traceId: undefined, trace_id: 'x\ty' })),
      req(chat({ spanId: sid(6), parentSpanId: '\u001b[2Jhello' })),
    ];
    const p = write(lines.map((l) => JSON.stringify(l)).join('\n'), 'jsonl');
    const r = await readSessions(p);
    expect(r.sessions.flatMap((x) => x.llmCalls.map((c) => c.id))).toEqual([sid(1)]);
    const rule = 'must not contain a control character (U+0000–U+001F, U+007F)';
    // Each names its line, and the column where the span begins on it.
    const column = FIRST_SPAN_COLUMN;
    expect(column).toBe(44);
    expect(r.warnings).toEqual([
      { code: 'malformed-span', message: `skipped span "a00000000000\\u000a002": span id (spanId) "a00000000000\\u000a002" ${rule}`, span: '"a00000000000\\u000a002"', file: p, line: 2, column },
      { code: 'malformed-span', message: `skipped span "a0000000000000\\u00003": span id (span_id) "a0000000000000\\u00003" ${rule}`, span: '"a0000000000000\\u00003"', file: p, line: 3, column },
      { code: 'malformed-span', message: `skipped span ${sid(4)}: trace id (traceId) "${T1.slice(0, 31)}\\u007f" ${rule}`, span: sid(4), file: p, line: 4, column },
      { code: 'malformed-span', message: `skipped span ${sid(5)}: trace id (trace_id) "x\\u0009y" ${rule}`, span: sid(5), file: p, line: 5, column },
      { code: 'malformed-span', message: `skipped span ${sid(6)}: parent span id (parentSpanId) "\\u001b[2Jhello" ${rule}`, span: sid(6), file: p, line: 6, column },
    ]);
    // Leading and trailing white space around an id is trimmed, as before: what is left is a clean id.
    const padded = await readSessions(write(JSON.stringify(req(chat({ spanId: `${sid(7)}\n` })))));
    expect([padded.sessions[0]!.llmCalls[0]!.id, padded.warnings]).toEqual([sid(7), []]);
  });

  it('a span whose session id has a control character is skipped, the warning naming line and attribute', async () => {
    const chat = (i: number, attrs: Attr, extra: Attr = {}) => span(T1, sid(i), { 'gen_ai.operation.name': 'chat', ...attrs }, extra);
    const withResource = (resource: Attr, ...spans: unknown[]) => ({ resourceSpans: [{ resource: { attributes: kv(resource) }, scopeSpans: [{ spans }] }] });
    const lines = [
      req(chat(1, { 'session.id': 'good' })),
      req(chat(2, { 'session.id': 'bad\nsession' })),
      withResource({ 'gen_ai.conversation.id': 'tab\there' }, chat(3, { 'langfuse.session.id': 'vendor' })),
      req(chat(4, { 'langfuse.session.id': 'nul\u0000' })),
      req(chat(5, { 'session.id': 'good' })),
    ];
    const p = write(lines.map((l) => JSON.stringify(l)).join('\n'), 'jsonl');
    const r = await readSessions(p);
    expect(r.sessions.map((x) => [x.id, x.llmCalls.map((c) => c.id)])).toEqual([['good', [sid(1), sid(5)]]]);
    const rule = 'must not contain a control character (U+0000–U+001F, U+007F)';
    // Line 3's span comes after its resource's attributes.
    const afterResource = JSON.stringify(lines[2]).indexOf('"spans":[') + '"spans":['.length + 1;
    expect(r.warnings).toEqual([
      { code: 'malformed-span', message: `skipped span ${sid(2)}: session id "bad\\u000asession" (span attribute session.id) ${rule}`, span: sid(2), file: p, line: 2, column: FIRST_SPAN_COLUMN },
      // A standard key on the resource outranks a vendor key on the span (SPEC §1): it is the one named.
      { code: 'malformed-span', message: `skipped span ${sid(3)}: session id "tab\\u0009here" (resource attribute gen_ai.conversation.id) ${rule}`, span: sid(3), file: p, line: 3, column: afterResource },
      { code: 'malformed-span', message: `skipped span ${sid(4)}: session id "nul\\u0000" (span attribute langfuse.session.id) ${rule}`, span: sid(4), file: p, line: 4, column: FIRST_SPAN_COLUMN },
    ]);
    expect(afterResource).toBe(141);
    // In a whole-file document, the line and column where the span begins.
    const whole = write(JSON.stringify(req(chat(6, { 'session.id': '\u007f' })), null, 2));
    expect((await readSessions(whole)).warnings).toEqual([
      { code: 'malformed-span', message: `skipped span ${sid(6)}: session id "\\u007f" (span attribute session.id) ${rule}`, span: sid(6), file: whole, line: 7, column: 13 },
      { code: 'empty-file', message: `${whole} holds no usable span or session`, file: whole },
    ]);
  });

  it('ClickHouse: a row whose SpanId, or the session key of its group, has a control character is skipped with a warning', async () => {
    const row = (id: string) => ({
      Timestamp: '2025-06-20 21:37:02.820000000', TraceId: T1, SpanId: id, SpanName: 'chat', SpanAttributes: { 'gen_ai.operation.name': 'chat' }, Duration: 1500000000,
    });
    const p = write(JSON.stringify({ 'line\nbreak': [row(sid(1))], fine: [row(sid(2)), row('a0\r0')] }));
    const r = await readSessions(p, { format: 'clickhouse' });
    // The skipped rows' places in the document (on its one line).
    const firstRow = readFileSync(p, 'utf8').indexOf('{"Timestamp"') + 1;
    const lastRow = readFileSync(p, 'utf8').lastIndexOf('{"Timestamp"') + 1;
    expect(r.sessions.map((x) => [x.id, x.llmCalls.map((c) => c.id)])).toEqual([['fine', [sid(2)]]]);
    const rule = 'must not contain a control character (U+0000–U+001F, U+007F)';
    expect(r.warnings).toEqual([
      // In the file's order: the group `line\nbreak` comes first.
      { code: 'malformed-span', message: `skipped span ${sid(1)}: session id "line\\u000abreak" (the session key its rows are grouped under) ${rule}`, span: sid(1), file: p, line: 1, column: firstRow },
      { code: 'malformed-span', message: `skipped row "a0\\u000d0": span id (SpanId) "a0\\u000d0" ${rule}`, span: '"a0\\u000d0"', file: p, line: 1, column: lastRow },
    ]);
  });

  it('an MCP server name with a control character is left out of the inventory and of the calls to it, with one warning', async () => {
    const mcp = (i: number, attrs: Attr) => span(T1, sid(i), { 'session.id': 's', ...attrs });
    const doc = req(
      mcp(1, { 'mcp.method.name': 'tools/list', 'mcp.server.name': 'evil\nserver', 'mcp.response.result': JSON.stringify({ tools: [{ name: 'search' }] }) }),
      mcp(2, { 'mcp.method.name': 'tools/call', 'mcp.server.name': 'evil\nserver', 'gen_ai.tool.name': 'search' }),
      mcp(3, { 'mcp.method.name': 'tools/call', 'server.address': 'good', 'gen_ai.tool.name': 'fetch' }),
      mcp(4, { 'mcp.method.name': 'tools/call', 'mcp.server.name': 'evil\nserver', 'gen_ai.tool.name': 'search' }),
    );
    const p = write(`${JSON.stringify(doc)}\n${JSON.stringify(req(mcp(5, { 'mcp.method.name': 'tools/list', 'server.address': 'bell\u0007' })))}\n`, 'jsonl');
    const r = await readSessions(p);
    const [session] = r.sessions;
    expect(session!.mcpServers.map((x) => x.name)).toEqual(['good']);
    expect(session!.toolCalls.map((t) => [t.id, t.toolName, t.mcp?.server ?? null])).toEqual([[sid(2), 'search', null], [sid(3), 'fetch', 'good'], [sid(4), 'search', null]]);
    const rule = 'must not contain a control character (U+0000–U+001F, U+007F)';
    expect(r.warnings).toEqual([
      { code: 'malformed-span', message: `span ${sid(1)}: MCP server name "evil\\u000aserver" (attribute mcp.server.name) ${rule}; left out of the inventory`, span: sid(1), sessionId: 's', file: p, line: 1 },
      { code: 'malformed-span', message: `span ${sid(5)}: MCP server name "bell\\u0007" (attribute server.address) ${rule}; left out of the inventory`, span: sid(5), sessionId: 's', file: p, line: 2 },
    ]);
  });

  it('a ClickHouse row without a Duration, or at the epoch, is skipped with a warning', async () => {
    const row = (id: string, extra: Record<string, unknown>) => ({
      Timestamp: '2025-06-20 21:37:02.820000000',
      TraceId: T1,
      SpanId: id,
      ParentSpanId: '',
      SpanName: 'ChatOpenAI.chat',
      SpanKind: 'Client',
      ServiceName: 'svc',
      SpanAttributes: { 'gen_ai.operation.name': 'chat' },
      Duration: 1500000000,
      StatusCode: 'Unset',
      ...extra,
    });
    const p = write(JSON.stringify([row(sid(1), {}), row(sid(2), { Duration: undefined }), row(sid(3), { Timestamp: '1970-01-01 00:00:00.000000000' }), row(sid(4), { Duration: -5 })]));
    const r = await readSessions(p, { format: 'clickhouse' });
    expect(r.warnings.map((w) => [w.code, w.span])).toEqual([['malformed-span', sid(2)], ['malformed-span', sid(3)], ['malformed-span', sid(4)]]);
    expect(r.warnings[0]!.message).toMatch(/no readable Duration/);
    expect(r.warnings[1]!.message).toMatch(/Timestamp is the epoch/);
    expect(r.warnings[2]!.message).toMatch(/no readable Duration/); // a negative one
    const call = r.sessions[0]!.llmCalls[0]!;
    expect([call.id, call.endTime - call.startTime]).toEqual([sid(1), 1500]);
  });

  it('errors come from status, exception events and error.type — never from output text', async () => {
    const tool = (i: number, attrs: Attr, extra: Attr = {}) => span(T1, sid(i), { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': `t${i}`, ...attrs }, extra);
    const doc = req(
      tool(1, { 'gen_ai.tool.call.result': 'Exception: the word error appears in a normal result' }),
      tool(2, {}, { status: { code: 'STATUS_CODE_ERROR', message: 'boom' } }),
      tool(3, {}, { events: [{ name: 'exception', timeUnixNano: '1500000000', attributes: kv({ 'exception.type': 'ValueError', 'exception.message': 'bad value' }) }] }),
      tool(4, { 'error.type': 'timeout' }),
      tool(5, {}, { status: { code: 1 } }),
    );
    const s = (await readSessions(write(JSON.stringify(doc)))).sessions[0]!;
    expect(s.toolCalls.map((t) => [t.toolName, t.status, t.error])).toEqual([
      ['t1', 'unset', undefined],
      ['t2', 'error', { message: 'boom' }],
      ['t3', 'error', { type: 'ValueError', message: 'bad value' }],
      ['t4', 'error', { type: 'timeout' }],
      ['t5', 'ok', undefined],
    ]);
  });

  it('ClickHouse rows: Events.* and Events* spellings, ISO timestamps, string durations', async () => {
    const row = (id: string, extra: Attr) => ({
      Timestamp: '2025-06-20T21:37:08.500Z',
      TraceId: T1,
      SpanId: id,
      ParentSpanId: '',
      SpanName: 'x.tool',
      SpanKind: 'SPAN_KIND_INTERNAL',
      ServiceName: 'svc',
      SpanAttributes: { 'traceloop.span.kind': 'tool', 'traceloop.entity.name': `tool_${id.slice(-1)}` },
      Duration: '250000000',
      StatusCode: 'STATUS_CODE_UNSET',
      ...extra,
    });
    const rows = [
      row(sid(1), { 'Events.Name': ['exception'], 'Events.Attributes': [{ 'exception.type': 'KeyError' }], 'Events.Timestamp': ['2025-06-20 21:37:08.600000'] }),
      row(sid(2), { EventsName: ['exception'], EventsAttributes: [{ 'exception.type': 'IOError' }], EventsTimestamp: [] }),
      row(sid(3), { StatusCode: 'Error', StatusMessage: 'failed' }),
    ];
    const s = (await readSessions(write(JSON.stringify(rows)))).sessions[0]!;
    expect(s.serviceName).toBe('svc');
    expect(s.toolCalls.map((t) => [t.toolName, t.status, t.error])).toEqual([
      ['tool_1', 'error', { type: 'KeyError' }],
      ['tool_2', 'error', { type: 'IOError' }],
      ['tool_3', 'error', { message: 'failed' }],
    ]);
    expect(s.toolCalls[0]!.startTime).toBe(Date.parse('2025-06-20T21:37:08.500Z'));
    expect(s.toolCalls[0]!.endTime - s.toolCalls[0]!.startTime).toBe(250);
  });
});

describe('session ids (SPEC §1)', () => {
  it('conversation id, then session.id, then execution.id, then vendor keys, then the trace id; children inherit', async () => {
    const tid = (c: string) => c.repeat(32);
    const doc = req(
      span(tid('1'), sid(1), { 'gen_ai.conversation.id': 'conv', 'session.id': 'sess', 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'a' }),
      span(tid('1'), sid(2), { 'gen_ai.operation.name': 'chat' }, { parentSpanId: sid(1) }),
      span(tid('2'), sid(3), { 'session.id': 'sess', 'execution.id': 'exec', 'gen_ai.operation.name': 'chat' }),
      span(tid('3'), sid(4), { 'execution.id': 'exec', 'gen_ai.operation.name': 'chat' }),
      span(tid('4'), sid(5), { 'langfuse.session.id': 'vendor', 'gen_ai.operation.name': 'chat' }),
      span(tid('5'), sid(6), { 'my.session': 'mine', 'gen_ai.operation.name': 'chat' }),
    );
    const p = write(JSON.stringify(doc));
    const ids = (ss: Session[]) => Object.fromEntries(ss.map((s) => [s.id, [...s.agentCalls, ...s.llmCalls].map((c) => c.id)]));
    expect(ids((await readSessions(p)).sessions)).toEqual({
      conv: [sid(1), sid(2)],
      sess: [sid(3)],
      exec: [sid(4)],
      vendor: [sid(5)],
      [tid('5')]: [sid(6)],
    });
    const custom = (await readSessions(p, { sessionKeys: ['my.session'] })).sessions;
    expect(custom.map((s) => s.id)).toEqual(['conv', 'sess', 'exec', tid('4'), 'mine']);
  });
});

describe('streaming JSON Lines', () => {
  const line = (traceId: string, i: number, attrs: Attr = {}, extra: Attr = {}) =>
    JSON.stringify(req(span(traceId, sid(i), { 'gen_ai.operation.name': 'chat', ...attrs }, extra)));

  it('emits a session once idle for windowSpans spans; children written before the root join its session', async () => {
    const lines = [
      line(T1, 1, {}, { parentSpanId: sid(3) }), // child before its root: waits under the trace id
      line(T1, 2, {}, { parentSpanId: sid(3) }),
      line(T1, 3, { 'session.id': 'A', 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'root' }),
      line(T2, 4, { 'session.id': 'B' }),
      line(T2, 5),
      line(T2, 6),
      line(T2, 7),
    ];
    const stream = streamSessions(write(lines.join('\n') + '\n', 'jsonl'), { windowSpans: 3 });
    const out: string[] = [];
    for await (const s of stream) out.push(`${s.id}:${[...s.agentCalls, ...s.llmCalls].map((c) => c.id.slice(-1)).join('')}`);
    expect(out).toEqual(['A:312', 'B:4567']);
    expect(stream.warnings.total).toBe(0);
  });

  it('spans of an already emitted session are emitted again under the same id, with a counted warning', async () => {
    const lines = [line(T1, 1, { 'session.id': 'A' }), line(T2, 2, { 'session.id': 'B' }), line(T2, 3), line(T2, 4), line(T2, 5), line(T1, 6, { 'session.id': 'A' })];
    const stream = streamSessions(write(lines.join('\n'), 'jsonl'), { windowSpans: 2 });
    const out: string[] = [];
    for await (const s of stream) out.push(`${s.id}:${s.llmCalls.length}`);
    expect(out).toEqual(['A:1', 'B:4', 'A:1']);
    expect(stream.warnings.counts).toEqual({ 'session-reemitted': 1 });
    // Named where the part emitted again begins: its first span's line.
    expect(stream.warnings.list.map((w) => [w.code, w.sessionId, w.line])).toEqual([['session-reemitted', 'A', 6]]);
  });

  it('a session whose spans hold no call is not emitted; the warning names the line of its first span', async () => {
    const http = (traceId: string, i: number) => JSON.stringify(req(span(traceId, sid(i), { 'http.method': 'GET', 'session.id': 'noise' })));
    const stream = streamSessions(write([line(T1, 1, { 'session.id': 'A' }), http(T2, 2), http(T2, 3)].join('\n'), 'jsonl'));
    const out: string[] = [];
    for await (const s of stream) out.push(s.id);
    expect(out).toEqual(['A']);
    expect(stream.warnings.list.map((w) => [w.code, w.sessionId, w.line])).toEqual([['no-calls', 'noise', 2]]);
  });

  it('JSON Lines of sessions are read too; blank lines are ignored', async () => {
    const s1 = { id: 's1', startTime: 0, endTime: 5 };
    const s2 = { kind: 'Session', id: 's2', startTime: 1, endTime: 2, llmCalls: [] };
    const r = await readSessions(write(`${JSON.stringify(s1)}\n\n${JSON.stringify(s2)}\n`, 'jsonl'));
    expect(r.sessions.map((s) => [s.id, s.masCalls.length])).toEqual([
      ['s1', 0],
      ['s2', 0],
    ]);
  });
});

describe('fields a session file has that the format does not define', () => {
  const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 2 };
  const llm = (id: string, extra: Record<string, unknown> = {}) => ({ kind: 'LLMCall', id, name: 'chat', startTime: 0, endTime: 1, usage, ...extra });

  it('are ignored with a warning naming the file, the line and column, the JSON path and the likely field; the sessions are read', async () => {
    const doc = {
      sessions: [
        { id: 's1', startTime: 0, endTime: 1, llmcalls: [llm('x')], llmCalls: [llm('a', { usage: { ...usage, inputTokns: 7 } })] },
        { id: 's2', startTime: 0, endTime: 1, llmCalls: [llm('b'), llm('c', { inputMessages: [{ role: 'user', content: 'hi', contnet: 'hi' }] })] },
      ],
    };
    const p = write(JSON.stringify(doc, null, 2));
    const r = await readSessions(p);
    expect(r.sessions.map((s) => [s.id, s.llmCalls.map((c) => c.id)])).toEqual([['s1', ['a']], ['s2', ['b', 'c']]]);
    expect(r.sessions[0]!.llmCalls[0]!.usage).toEqual(usage); // the stray field is not kept
    const warning = (path: string, hint: string, line: number, column: number) => ({ code: 'unknown-field', message: `${path}: unknown field, ignored ${hint}`, file: p, line, column, path, count: 1 });
    expect(r.warnings).toEqual([
      warning('sessions[0].llmcalls', '(did you mean "llmCalls"?)', 7, 7),
      warning('sessions[0].llmCalls[0].usage.inputTokns', '(did you mean "inputTokens"?)', 38, 13),
      warning('sessions[1].llmCalls[1].inputMessages[0].contnet', '(did you mean "content"?)', 81, 15),
    ]);
    expect(r.warningCounts).toEqual({ 'unknown-field': 3 });
  });

  it('in JSON Lines, name the line and column of the first one and are grouped over the lines of the file', async () => {
    const line = (id: string, extra: Record<string, unknown> = {}) => JSON.stringify({ id, startTime: 0, endTime: 1, ...extra });
    const lines = [
      line('s1'),
      line('s2', { llmCalls: [llm('a'), llm('b', { startTme: 0 })] }),
      '',
      line('s3', { toolcalls: [] }),
      line('s4', { llmCalls: [llm('c', { startTme: 0 })] }),
    ];
    const p = write(lines.join('\n'), 'jsonl');
    const r = await readSessions(p);
    expect(r.sessions.map((s) => s.id)).toEqual(['s1', 's2', 's3', 's4']);
    // The columns of the names on their lines (the first `startTme` is on line 2, in its second call).
    const columns = [lines[1]!.indexOf('"startTme"') + 1, lines[3]!.indexOf('"toolcalls"') + 1];
    expect(columns).toEqual([425, 38]);
    expect(r.warnings).toEqual([
      {
        code: 'unknown-field',
        message: 'llmCalls[1].startTme: unknown field, ignored (did you mean "startTime"?); 2 in all at llmCalls[*].startTme',
        file: p,
        line: 2,
        column: columns[0],
        path: 'llmCalls[1].startTme',
        count: 2,
      },
      { code: 'unknown-field', message: 'toolcalls: unknown field, ignored (did you mean "toolCalls"?)', file: p, line: 4, column: columns[1], path: 'toolcalls', count: 1 },
    ]);
  });

  it('100,000 calls with the same stray field give one warning with the count', async () => {
    const toolCalls = Array.from({ length: 100_000 }, (_, i) => ({ kind: 'ToolCall', id: `t${i}`, name: 't', startTime: 0, endTime: 1, toolName: 't', duration: 1 }));
    const p = write(JSON.stringify({ id: 'big', startTime: 0, endTime: 1, toolCalls }));
    const r = await readSessions(p);
    expect(r.sessions[0]!.toolCalls).toHaveLength(100_000);
    // A document written on one line is still one document: the first one's column on line 1.
    const column = readFileSync(p, 'utf8').indexOf('"duration"') + 1;
    expect(r.warnings).toEqual([
      { code: 'unknown-field', message: 'toolCalls[0].duration: unknown field, ignored; 100000 in all at toolCalls[*].duration', file: p, line: 1, column, path: 'toolCalls[0].duration', count: 100_000 },
    ]);
  });

  it('a session not recognised as one for a misspelt time is told the likely fields meant', async () => {
    const p = write(JSON.stringify({ id: 's', startTme: 0, endTim: 1, llmCalls: [] }, null, 2));
    expect((await catchError(readSessions(p))).message).toBe(
      `${p}: not a known trace format: the file holds an object with keys "id", "startTme", "endTim", "llmCalls"; ` +
        'as a session: startTme (line 3, column 3): unknown field, ignored (did you mean "startTime"?); endTim (line 4, column 3): unknown field, ignored (did you mean "endTime"?); ' +
        `${KNOWN}`,
    );
    const lines = write(`${JSON.stringify({ id: 's0', startTime: 0, endTime: 1 })}\n${JSON.stringify({ id: 's', startTme: 0, endTime: 1 })}\n{"id":"x","other":1}\n`, 'jsonl');
    const r = await readSessions(lines);
    // On line 2, `startTme` is at column 11 (`{"id":"s",` before it); the warning's column is the first field named.
    expect(r.warnings.map((w) => [w.line, w.column, w.message])).toEqual([
      [2, 11, 'skipped line: not an OTLP request, ClickHouse row or session; as a session: startTme (line 2, column 11): unknown field, ignored (did you mean "startTime"?)'],
      [3, undefined, 'skipped line: not an OTLP request, ClickHouse row or session'], // nothing close to a session field: no guess
    ]);
    // On the first line, the file is in no known format: its error names the place the same way.
    const first = write(`${JSON.stringify({ id: 's', startTme: 0, endTime: 1 })}\n${JSON.stringify({ id: 's0', startTime: 0, endTime: 1 })}\n`, 'jsonl');
    const e = await catchError(readSessions(first));
    expect([e.line, e.message]).toEqual([
      1,
      `${first}:1: not a known trace format: the line holds an object with keys "id", "startTme", "endTime"; ` +
        `as a session: startTme (line 1, column 11): unknown field, ignored (did you mean "startTime"?); ${KNOWN}`,
    ]);
    // Without an id, a document is no session to guess at, whatever its fields.
    const anonymous = write(`${JSON.stringify({ id: 's0', startTime: 0, endTime: 1 })}\n${JSON.stringify({ startTme: 0, endTime: 1 })}\n`, 'jsonl');
    expect((await readSessions(anonymous)).warnings.map((w) => [w.line, w.message])).toEqual([[2, 'skipped line: not an OTLP request, ClickHouse row or session']]);
  });

  it('a refused file names its first five faults, and counts the others', async () => {
    const five = { kind: 'Session', id: 's', startTime: 'a', endTime: 'b', traceIds: 3, userInput: 4, finalResponse: 5 };
    // Each fault at its value's place on the document's one line.
    const fault = (text: string, field: string, expected: string, received: string) =>
      `${field} (line 1, column ${text.indexOf(`"${field}":`) + field.length + 4}): Invalid input: expected ${expected}, received ${received}`;
    const text = JSON.stringify(five);
    const faults = (t: string) => [
      fault(t, 'startTime', 'number', 'string'),
      fault(t, 'endTime', 'number', 'string'),
      fault(t, 'traceIds', 'array', 'number'),
      fault(t, 'userInput', 'string', 'number'),
      fault(t, 'finalResponse', 'string', 'number'),
    ];
    const p = write(text);
    expect((await catchError(readSessions(p))).message).toBe(`${p}: not a valid session file (${faults(text).join('; ')})`);
    expect(faults(text)[0]).toBe('startTime (line 1, column 40): Invalid input: expected number, received string');
    const sixText = JSON.stringify({ ...five, serviceName: 6 });
    const six = write(sixText);
    const [start, end, traces, input] = faults(sixText);
    const service = fault(sixText, 'serviceName', 'string', 'number');
    expect((await catchError(readSessions(six))).message).toBe(`${six}: not a valid session file (${[start, end, service, traces, input, 'and 1 more'].join('; ')})`);
  });

  it('a file refused for a missing field names the unknown ones after it (the likely typo)', async () => {
    const p = write(JSON.stringify({ id: 's', startTime: 0, endTime: 1, llmCalls: [{ kind: 'LLMCall', id: 'a', name: 'chat', startTme: 0, endTime: 1, usage }] }));
    const e = await catchError(readSessions(p));
    // On one line: the call lacking `startTime` begins at column 49, its `startTme` is at column 90.
    expect(e.message).toBe(
      `${p}: not a valid session file (llmCalls.0.startTime (line 1, column 49): Invalid input: expected number, received undefined; ` +
        'llmCalls[0].startTme (line 1, column 90): unknown field, ignored (did you mean "startTime"?))',
    );
    // On a JSON Lines line, the same words in the skipped line's warning (and no unknown-field warning of its own), the
    // places on that line: the session lacking `startTime` begins at column 1, its `startTme` is at column 28.
    const lines = write(`${JSON.stringify({ id: 's0', startTime: 0, endTime: 1 })}\n${JSON.stringify({ kind: 'Session', id: 's', startTme: 0, endTime: 1 })}\n`, 'jsonl');
    const r = await readSessions(lines);
    expect(r.warnings).toEqual([{
      code: 'malformed-line',
      message: 'skipped line: not a valid session file (startTime (line 2, column 1): Invalid input: expected number, received undefined; ' +
        'startTme (line 2, column 28): unknown field, ignored (did you mean "startTime"?))',
      file: lines,
      line: 2,
      column: 1,
    }]);
  });
});

describe('session export round trip', () => {
  it('every fixture exports to session JSON and re-imports to deep-equal sessions', async () => {
    const files = [
      ...readdirSync(fixture('clickhouse-otel-traces')).filter((f) => f.endsWith('.json')).map((f) => fixture(`clickhouse-otel-traces/${f}`)),
      ...readdirSync(fixture('otlp-dialects')).filter((f) => f.endsWith('.json')).map((f) => fixture(`otlp-dialects/${f}`)),
      dataFile('multi-agent/openinference.jsonl'),
    ];
    const all: Session[] = [];
    for (const f of files) all.push(...(await readSessions(f)).sessions);
    expect(all).toHaveLength(13); // 4 ClickHouse + 8 OTLP (braintrust's score-only trace holds no call) + 1
    const out = join(dir, 'export.json');
    expect(await writeSessionsFile(out, all)).toBe(13);
    expect(await detectFormat(out)).toBe('session-json');
    const back = await readSessions(out);
    expect(back.sessions).toStrictEqual(all);
    expect(back.warnings).toEqual([]); // no field the format does not define
    // and a single-session document
    const one = join(dir, 'one.json');
    writeFileSync(one, JSON.stringify(all[0]));
    expect((await readSessions(one)).sessions).toEqual([all[0]]);
  });
});

describe('JSON Lines with long lines', () => {
  it('detects JSON Lines whose first line is longer than the detection buffer', async () => {
    const spans = Array.from({ length: 400 }, (_, i) => span(T1, `b0000000000${String(i).padStart(5, '0')}`, { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': 'x'.repeat(200) }));
    const first = JSON.stringify(req(...spans));
    expect(first.length).toBeGreaterThan(1 << 16);
    const p = write(`${first}\n${JSON.stringify(req(span(T1, sid(1), { 'gen_ai.operation.name': 'chat' })))}\n`, 'jsonl');
    expect(await detectFormat(p)).toBe('otlp-jsonl');
    expect((await readSessions(p)).sessions[0]!.llmCalls).toHaveLength(401);
  });
});
