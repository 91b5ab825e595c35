/**
 * `mce compute --input` computes the sessions as they are read, a chunk at a time, instead of reading every session
 * of the input first (a 1 GB JSON Lines file then ran out of memory): the results are those of the whole read, and
 * the first chunk is written out before the reader has reached the end of its file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Session, SessionComputation } from '@mce/core';
import { MCEClient, defaultMceConfig, openStore, readSessions } from '@mce/client';
import { main } from '../../src/cli/main.js';
import { runCli, tempWorkspace } from './run-cli.js';

const example = (name: string) => new URL(`../../../../examples/${name}`, import.meta.url).pathname;
const METRICS = 'Duration,LLMCallCount,ToolCallCount,Cost';

/** `count` copies of the example session under their own ids, as one session JSON document. */
function sessionsDocument(path: string, count: number, prefix: string): string[] {
  const session = JSON.parse(readFileSync(example('sessions/single-agent-tool.json'), 'utf8')) as Session;
  const sessions = Array.from({ length: count }, (_, i) => ({ ...session, id: `${prefix}-${i}` }));
  writeFileSync(path, JSON.stringify({ sessions }));
  return sessions.map((s) => s.id);
}

/** What the command computed before: every session of the files read whole, then computed in one run. */
async function computedWhole(files: string[], runId: string): Promise<SessionComputation[]> {
  const store = await openStore('sqlite::memory:');
  const client = await MCEClient.open({ config: defaultMceConfig(), store, cache: false, env: {}, logger: { warn: () => undefined } });
  try {
    const { sessions } = await readSessions(files);
    return await client.compute(sessions, { metrics: METRICS.split(','), runId });
  } finally {
    await client.close();
    await store.close();
  }
}

/** In order of session id, without the results' timestamps (when each was computed). */
const comparable = (list: SessionComputation[]) =>
  JSON.parse(JSON.stringify([...list].sort((a, b) => a.sessionId.localeCompare(b.sessionId)), (key, value: unknown) => (key === 'timestamp' ? undefined : value))) as unknown;

describe('compute --input, streamed', () => {
  it('gives the results of reading the input whole, over several chunks and formats', async () => {
    const ws = tempWorkspace();
    const many = join(ws.dir, 'many.json');
    sessionsDocument(many, 250, 'many'); // three chunks of up to 100 sessions
    const files = [many, example('traces/multi-agent.jsonl'), example('sessions/handoff-three-agents.json'), example('sessions/mcp-tools.json')];
    const runId = 'stream-test-run';
    const run = await runCli(['compute', '--input', ...files, '--metrics', METRICS, '--run-id', runId, '--no-store', '--json'], ws);
    expect(run.code).toBe(0);
    const streamed = run.json<{ sessions: SessionComputation[] }>().sessions;
    const whole = await computedWhole(files, runId);
    expect(streamed).toHaveLength(250 + 3);
    expect(comparable(streamed)).toEqual(comparable(whole));
  });

  it('stores what it computes chunk by chunk, the same as the printed results', async () => {
    const ws = tempWorkspace();
    const many = join(ws.dir, 'many.json');
    const ids = sessionsDocument(many, 120, 'stored');
    const run = await runCli(['compute', '--input', many, '--metrics', METRICS, '--json'], ws);
    expect(run.code).toBe(0);
    const printed = run.json<{ sessions: SessionComputation[] }>().sessions;
    expect(printed.map((c) => c.sessionId).sort()).toEqual([...ids].sort());
    const listed = await runCli(['sessions', 'list', '--limit', '1000', '--json'], ws);
    expect(listed.json<{ id: string }[]>().map((s) => s.id).sort()).toEqual([...ids].sort());
  });

  it('writes out the first chunk before the reader has reached the end of the file', async () => {
    const ws = tempWorkspace();
    const big = join(ws.dir, 'big.json');
    sessionsDocument(big, 150, 'big');
    const small = example('sessions/single-agent-tool.json');
    // stdout and stderr in the order they were written: "read FILE" is said on stderr when a file has been read whole.
    const events: string[] = [];
    const code = await main(['compute', '--input', big, small, '--metrics', 'Duration', '--no-store'], {
      stdout: { write: (s: string | Uint8Array) => (events.push(`stdout ${String(s)}`), true) } as never,
      stderr: { write: (s: string | Uint8Array) => (events.push(`stderr ${String(s)}`), true) } as never,
      env: { ...ws.env },
      cwd: ws.dir,
    });
    expect(code).toBe(0);
    const firstResult = events.findIndex((e) => e.startsWith('stdout '));
    const bigRead = events.findIndex((e) => e === `stderr read ${big}\n`);
    expect(bigRead).toBeGreaterThan(0);
    expect(firstResult).toBeGreaterThanOrEqual(0);
    expect(firstResult).toBeLessThan(bigRead);
    // The first chunk's 100 computations (one write each) were written before the file was read whole, the rest after.
    expect(events.slice(0, bigRead).filter((e) => e.startsWith('stdout '))).toHaveLength(100);
    expect(events.filter((e) => e.startsWith('stdout '))).toHaveLength(151);
  });

  it('under --strict, computes the files read before the unreadable one, then fails naming it (exit 2)', async () => {
    const ws = tempWorkspace();
    const bad = join(ws.dir, 'bad.json');
    writeFileSync(bad, 'not json');
    const run = await runCli(['compute', '--input', example('sessions/single-agent-tool.json'), bad, '--metrics', 'Duration', '--no-store', '--strict'], ws);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('Session weather-001');
    expect(run.stderr).toContain('bad.json');
  });
});
