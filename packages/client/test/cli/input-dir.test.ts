/**
 * `mce ingest DIR` and `mce compute --input DIR` with unreadable files among good ones: each file is reported, the
 * unreadable ones are skipped with nothing of them stored, the exit code says something was skipped (3); `--strict`
 * makes any of them fatal (2); a run where no file could be read is bad input (2).
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { fixture } from '../../../ingest/test/helpers.js';
import { runCli, tempWorkspace } from './run-cli.js';

const T = '22222222222222222222222222222222';
const otlp = (traceId: string, tool: string) => ({
  resourceSpans: [{ scopeSpans: [{ spans: [{ traceId, spanId: 'a000000000000001', name: `execute_tool ${tool}`, startTimeUnixNano: '1000000000', endTimeUnixNano: '2000000000', attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } }, { key: 'gen_ai.tool.name', value: { stringValue: tool } }] }] }] }],
});

/** A folder: a good OTLP file, a real Langfuse export gzipped, invalid JSON, a file of no known format. */
function inputDir(dir: string): string {
  const input = join(dir, 'traces');
  mkdirSync(input);
  writeFileSync(join(input, 'a-good.json'), JSON.stringify(otlp(T, 'search')));
  const langfuse = fixture('real-world/langfuse-export_google-adk-2025-08-28.json');
  copyFileSync(langfuse, join(input, 'b-langfuse.json'));
  writeFileSync(join(input, 'b-langfuse-copy.json.gz'), gzipSync(Buffer.from(JSON.stringify(otlp('33333333333333333333333333333333', 'fetch')))));
  writeFileSync(join(input, 'c-broken.json'), '{\n  "resourceSpans": [\n    {"scopeSpans": [}\n  ]\n}\n');
  writeFileSync(join(input, 'd-other.json'), JSON.stringify({ hello: 'world', items: [] }));
  return input;
}

describe('a folder with unreadable files', () => {
  it('mce ingest DIR reads the good files, reports each, skips the others (nothing of them stored) and exits 3', async () => {
    const ws = tempWorkspace();
    const input = inputDir(ws.dir);
    const run = await runCli(['ingest', input], ws);
    expect(run.code).toBe(3);
    const lines = run.stderr.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('read '))).toEqual([`read ${join(input, 'a-good.json')}`, `read ${join(input, 'b-langfuse-copy.json.gz')}`, `read ${join(input, 'b-langfuse.json')}`]);
    // (V8's message quotes the text around the fault, line breaks and all.)
    expect(run.stderr).toMatch(/\nskipped \S*c-broken\.json:3: invalid JSON: [^]*? \(line 3, column 21\)\n/);
    expect(lines.filter((l) => l.startsWith('skipped ') && l.includes('d-other'))).toEqual([
      expect.stringMatching(/^skipped .*d-other\.json: not a known trace format: the file holds an object with keys "hello", "items"; the formats read are /),
    ]);
    expect(lines.at(-2)).toBe('ingested 3 session(s), 9 call(s) from 3 file(s), 2 file(s) skipped (above)');
    expect(lines.at(-1)).toBe('mce: 2 of 5 input file(s) skipped as unreadable (named above); the others were read');
    expect(run.stdout.trim().split('\n').sort()).toEqual([T, '33333333333333333333333333333333', 'demo-session']);
    const stored = (await runCli(['sessions', 'list', '--json'], ws)).json<{ id: string }[]>();
    expect(stored.map((s) => s.id).sort()).toEqual([T, '33333333333333333333333333333333', 'demo-session']);
  });

  it('--json lists the skipped files with their reasons', async () => {
    const ws = tempWorkspace();
    const input = inputDir(ws.dir);
    const run = await runCli(['ingest', input, '--json'], ws);
    expect(run.code).toBe(3);
    const out = run.json<{ sessionIds: string[]; skipped: { file: string; reason: string }[] }>();
    expect(out.sessionIds).toHaveLength(3);
    expect(out.skipped.map((s) => s.file)).toEqual([join(input, 'c-broken.json'), join(input, 'd-other.json')]);
    expect(out.skipped[0]!.reason).toContain('(line 3, column 21)');
  });

  it('--strict: the first unreadable file ends the run (exit 2); no session of it is stored', async () => {
    const ws = tempWorkspace();
    const input = inputDir(ws.dir);
    const run = await runCli(['ingest', input, '--strict'], ws);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`mce: ${join(input, 'c-broken.json')}:3: invalid JSON`);
    const stored = (await runCli(['sessions', 'list', '--json'], ws)).json<{ id: string }[]>();
    // The files before it are whole and stored, as before; nothing of the broken one, nor of those after it.
    expect(stored.map((s) => s.id).sort()).toEqual([T, '33333333333333333333333333333333', 'demo-session']);
  });

  it('mce compute --input DIR --no-store computes the readable files and exits 3; no readable file at all is exit 2', async () => {
    const ws = tempWorkspace();
    const input = inputDir(ws.dir);
    const run = await runCli(['compute', '--input', input, '--no-store', '--metrics', 'ToolCallCount', '--json'], ws);
    expect(run.code).toBe(3);
    const out = run.json<{ sessions: { sessionId: string }[] }>();
    expect(out.sessions.map((s) => s.sessionId).sort()).toEqual([T, '33333333333333333333333333333333', 'demo-session']);
    const bad = join(ws.dir, 'bad');
    mkdirSync(bad);
    writeFileSync(join(bad, 'x.json'), '{"hello": 1}');
    writeFileSync(join(bad, 'y.json'), '');
    const none = await runCli(['compute', '--input', bad, '--no-store'], ws);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('x.json: not a known trace format');
    expect(none.stderr).toMatch(/skipped .*y\.json: file is empty/);
  });
});
