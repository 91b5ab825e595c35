/**
 * A document is read (and parsed) once: written on one line, the line format detection parsed is the document. The
 * places its spans remember (for warnings about them) cost no second read unless there is a warning to place.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { readSessions } from '../src/index.js';

// Count whole-file reads; the files are still read for real.
const wholeFileReads = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  const readFile = ((...args: Parameters<typeof fs.readFile>) => {
    wholeFileReads.count++;
    return fs.readFile(...args);
  }) as typeof fs.readFile;
  return { ...fs, readFile, default: { ...fs, readFile } };
});

const dir = mkdtempSync(join(tmpdir(), 'mce-read-once-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(() => {
  wholeFileReads.count = 0;
});

const T = '11111111111111111111111111111111';
const doc = {
  resourceSpans: [
    {
      scopeSpans: [
        {
          spans: [
            {
              traceId: T,
              spanId: 'a000000000000001',
              name: 'execute_tool search',
              startTimeUnixNano: '1000000000',
              endTimeUnixNano: '2000000000',
              attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } }, { key: 'gen_ai.tool.name', value: { stringValue: 'search' } }],
            },
          ],
        },
      ],
    },
  ],
};

describe('one-line documents', () => {
  it('an OTLP document on one line (BOM, blank lines around it) is read once, from the detection pass', async () => {
    const p = join(dir, 'one-line.json');
    writeFileSync(p, `\uFEFF\n${JSON.stringify(doc)}\n\n`);
    const { sessions, warnings } = await readSessions(p);
    expect(warnings).toEqual([]);
    expect(sessions.map((s) => [s.id, s.toolCalls.map((t) => t.toolName)])).toEqual([[T, ['search']]]);
    expect(wholeFileReads.count).toBe(0);
  });

  it('a pretty-printed document is still read whole, once', async () => {
    const p = join(dir, 'pretty.json');
    writeFileSync(p, JSON.stringify(doc, null, 2));
    const { sessions } = await readSessions(p);
    expect(sessions.map((s) => [s.id, s.toolCalls.map((t) => t.toolName)])).toEqual([[T, ['search']]]);
    expect(wholeFileReads.count).toBe(1);
  });
});

describe('documents whose spans remember their place', () => {
  const span = (id: string, parent?: string) => ({
    traceId: T,
    spanId: id,
    ...(parent ? { parentSpanId: parent } : {}),
    name: parent ? 'chat' : 'invoke_agent a',
    startTimeUnixNano: '1000000000',
    endTimeUnixNano: '2000000000',
    attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: parent ? 'chat' : 'invoke_agent' } }],
  });
  const row = (id: string, parent?: string) => ({
    Timestamp: '2025-06-20 21:37:02.820000000',
    TraceId: T,
    SpanId: id,
    ...(parent ? { ParentSpanId: parent } : {}),
    SpanAttributes: { 'gen_ai.operation.name': parent ? 'chat' : 'invoke_agent', 'gen_ai.agent.name': 'a' },
    Duration: 1500000000,
  });
  const request = (...spans: unknown[]) => ({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
  const valid = {
    'an OTLP request': request(span('a000000000000001'), span('a000000000000002', 'a000000000000001')),
    'a list of OTLP requests': [request(span('a000000000000001')), request(span('a000000000000002', 'a000000000000001'))],
    'ClickHouse rows': [row('a000000000000001'), row('a000000000000002', 'a000000000000001')],
    'ClickHouse rows by session': { s: [row('a000000000000001'), row('a000000000000002', 'a000000000000001')] },
  };

  it.each(Object.entries(valid))('%s without a fault, normalised, is read once', async (name, content) => {
    const p = join(dir, `${name.replaceAll(' ', '-')}.json`);
    writeFileSync(p, JSON.stringify(content, null, 2));
    const { sessions, warnings } = await readSessions(p);
    expect([sessions.map((s) => [s.agentCalls.length, s.llmCalls.length]), warnings]).toEqual([[[1, 1]], []]);
    // A list of ClickHouse rows is streamed row by row: never read whole.
    expect(wholeFileReads.count).toBe(name === 'ClickHouse rows' ? 0 : 1);
  });

  it('one with warnings from its reader and from the normaliser is read once more, for all of them', async () => {
    const p = join(dir, 'warned.json');
    const { endTimeUnixNano: _end, ...noEnd } = span('a000000000000003', 'a000000000000001');
    // A duplicate and an orphan (normaliser), a span without an end time (reader).
    writeFileSync(p, JSON.stringify(request(span('a000000000000001'), span('a000000000000002', 'a000000000000001'), span('a000000000000002', 'a000000000000001'), span('a000000000000004', 'ffffffffffffffff'), noEnd), null, 2));
    const { warnings } = await readSessions(p);
    expect(warnings.map((w) => [w.code, w.line !== undefined, w.column !== undefined])).toEqual([
      ['malformed-span', true, true],
      ['duplicate-span', true, true],
      ['unknown-parent', true, true],
    ]);
    expect(wholeFileReads.count).toBe(2);
  });
});
