/** A document written on one line is read (and parsed) once: the line format detection parsed is the document. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { readSessions } from '../../src/ingest/index.js';

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
