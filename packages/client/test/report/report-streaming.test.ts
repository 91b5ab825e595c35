/**
 * `mce report` written a session at a time: the spooled document is the one reportDocument builds, a session added
 * again keeps its first place and shows its last section, and a failed write leaves no half report under the
 * target's name (a file keeps its earlier contents; stdout closed by its reader ends the command with an error).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Session } from '@mce/core';
import { buildSessionReport, reportDocument, type SessionReport } from '../../src/report/index.js';
import { SectionSpool } from '../../src/report/spool.js';
import { openReportOutput } from '../../src/cli/commands/report-output.js';
import { runCli, tempWorkspace } from '../cli/run-cli.js';

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const example = (p: string) => join(repo, 'examples', p);
const exampleSession = (p: string) => JSON.parse(readFileSync(example(`sessions/${p}`), 'utf8')) as Session;
const reportOf = (session: Session) => buildSessionReport(session, { sessionId: session.id, results: [], failed: [], skipped: [] });

async function spooled(reports: SessionReport[], generatedAt: Date): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'mce-spool-test-'));
  try {
    await using spool = await SectionSpool.create(dir);
    for (const r of reports) await spool.add(r);
    const pieces: Buffer[] = [];
    const bytes = await spool.writeDocument(async (chunk) => void pieces.push(Buffer.from(chunk)), generatedAt);
    const html = Buffer.concat(pieces);
    expect(bytes).toBe(html.length);
    return html.toString('utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the report spool', () => {
  const at = new Date('2026-01-02T03:04:05.000Z');
  const weather = exampleSession('single-agent-tool.json');
  const other = { ...weather, id: 'über-ünïcode-✓', userInput: 'ß'.repeat(5000) };

  it('writes the document reportDocument builds, byte for byte', async () => {
    const reports = [reportOf(weather), reportOf(other)];
    expect(await spooled(reports, at)).toBe(reportDocument(reports, at));
    expect(await spooled([reportOf(weather)], at)).toBe(reportDocument([reportOf(weather)], at));
  });

  it('a session added again keeps its first place and anchor, and shows what was added last', async () => {
    const later = { ...weather, finalResponse: 'the merged session' };
    const html = await spooled([reportOf(weather), reportOf(other), reportOf(later)], at);
    expect(html).toBe(reportDocument([reportOf(later), reportOf(other)], at));
    expect(html.match(/<h2 id="session-\d+-h">/g)).toEqual(['<h2 id="session-1-h">', '<h2 id="session-2-h">']);
    expect(html.match(/<dt>Final response<\/dt><dd>[^<]*<\/dd>/g)).toEqual([
      '<dt>Final response</dt><dd>the merged session</dd>',
      expect.stringMatching(/^<dt>Final response<\/dt><dd>(?!the merged session)/),
    ]);
  });
});

describe('mce report -o -', () => {
  it('writes whole characters: a section of megabytes is copied in pieces that may end inside one', async () => {
    const ws = tempWorkspace();
    const input = join(ws.dir, 'wide.json');
    // 3-byte characters after ids one byte longer each: a piece's end falls inside a character in at least two of them.
    const userInput = '✓'.repeat(400_000);
    const sessions = ['a', 'ab', 'abc'].map((id) => ({ ...exampleSession('single-agent-tool.json'), id, userInput }));
    writeFileSync(input, JSON.stringify({ sessions }));
    const run = await runCli(['report', '--input', input, '--metrics', 'Duration', '-o', '-'], ws);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('\uFFFD');
    expect(run.stdout.split(`<dt>Input</dt><dd>${userInput}</dd>`)).toHaveLength(4);
  });
});

describe('mce report: a failed write', () => {
  it('leaves an earlier report as it was and nothing beside it; a whole one replaces it', async () => {
    const ws = tempWorkspace();
    const target = join(ws.dir, 'r.html');
    writeFileSync(target, 'the earlier report');
    const unreadable = join(ws.dir, 'broken.json');
    writeFileSync(unreadable, '{"sessions": [');
    const failed = await runCli(['report', '--input', example('sessions/single-agent-tool.json'), unreadable, '-o', target], ws);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain('broken.json');
    expect(readFileSync(target, 'utf8')).toBe('the earlier report');
    const files = () => readdirSync(ws.dir).filter((f) => f.endsWith('.html') || f.endsWith('.tmp'));
    expect(files()).toEqual(['r.html']);

    const made = await runCli(['report', '--input', example('sessions/single-agent-tool.json'), '-o', target], ws);
    expect(made.code, made.stderr).toBe(0);
    expect(readFileSync(target, 'utf8')).toMatch(/^<!doctype html>[\s\S]*>Session weather-001<[\s\S]*<\/html>\n$/);
    expect(files()).toEqual(['r.html']);
  });

  it('the file: written beside the target, renamed over it when whole, removed when not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mce-output-test-'));
    const target = join(dir, 'r.html');
    writeFileSync(target, 'the earlier report');
    const io = { stdout: process.stdout, stderr: process.stderr, env: {}, cwd: dir };
    const broken = await openReportOutput(target, io);
    await broken.write('<!doctype html>half');
    expect(readdirSync(dir).sort()).toEqual([expect.stringMatching(/^\.r\.html\.[0-9a-f]{8}\.tmp$/), 'r.html']);
    await broken.abort();
    expect(readdirSync(dir)).toEqual(['r.html']);
    expect(readFileSync(target, 'utf8')).toBe('the earlier report');
    const whole = await openReportOutput(target, io);
    await whole.write('<!doctype html>');
    await whole.write(Buffer.from('whole ✓'));
    await whole.commit();
    expect(readdirSync(dir)).toEqual(['r.html']);
    expect(readFileSync(target, 'utf8')).toBe('<!doctype html>whole ✓');
    await expect(openReportOutput(join(dir, 'no-such-dir', 'r.html'), io)).rejects.toThrow(`${join(dir, 'no-such-dir', 'r.html')}: cannot write the report here (ENOENT)`);
    rmSync(dir, { recursive: true, force: true });
  });

  it('stdout closed by its reader: what was written, then exit 1 naming EPIPE', async () => {
    const ws = tempWorkspace();
    const { syntheticSession } = (await import(pathToFileURL(join(repo, 'bench/lib/synthetic.mjs')).href)) as { syntheticSession: (spans: number) => unknown };
    const input = join(ws.dir, 'big.json');
    // A report of megabytes: far more than a pipe holds, so the writer is still writing when the reader goes.
    writeFileSync(input, JSON.stringify(syntheticSession(3000)));
    const child = spawn(process.execPath, [join(repo, 'packages/client/bin/mce.js'), 'report', '--input', input, '--metrics', 'Duration', '-o', '-'], {
      env: ws.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let first = '';
    child.stdout.once('data', (chunk: Buffer) => {
      first = chunk.toString('utf8');
      child.stdout.destroy();
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(first).toMatch(/^<!doctype html>/);
    expect(code).toBe(1);
    expect(stderr).toContain('EPIPE');
  });
});
