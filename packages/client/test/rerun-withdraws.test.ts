/** A re-run of a run id leaves no score its metrics did not give this time. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resultId, resultIdPrefix, skip, unstoredResultIds, type Metric, type MetricProvider } from '@mce/core';
import { MCEClient, defaultMceConfig, openStore, readSessions } from '../src/index.js';

let mode: 'score' | 'fail' | 'skip' = 'score';
const flaky: Metric = {
  metadata: {
    name: 'Flaky', provider: 'acme', levels: ['Session', 'ToolCall'], nature: 'deterministic', unit: 'count',
    valueRange: 'non-negative number', description: 'test', requirements: [], dependsOn: [],
  },
  compute: () => {
    if (mode === 'fail') throw new Error('judge said nonsense');
    return mode === 'skip' ? skip('nothing to judge') : { value: 42 };
  },
};
const acme: MetricProvider = { name: 'acme', description: 'test', version: '1.0.0', metrics: () => [flaky] };

describe('re-running a run id', () => {
  it('removes the earlier score of a metric that now fails or is skipped, and keeps the rest', async () => {
    const url = `sqlite:${join(mkdtempSync(join(tmpdir(), 'mce-rerun-')), 'kg.db')}`;
    const [session] = (await readSessions(new URL('../../../examples/sessions/single-agent-tool.json', import.meta.url).pathname)).sessions;
    const config = { ...defaultMceConfig(), metrics: { Session: ['acme:Flaky', 'Duration'], ToolCall: ['acme:Flaky'] } };
    const client = await MCEClient.open({ config, store: await openStore(url), providers: [acme], cache: false });
    try {
      await client.store.writeSessions([session!]);
      const stored = async () =>
        (await client.getMetrics(session!.id, { recursive: true })).map((r) => `${r.name}@${r.level}=${r.result}`).sort();
      const toolCalls = session!.toolCalls.length;
      expect(toolCalls).toBeGreaterThan(0);

      mode = 'score';
      await client.computeAndStore(session!.id, { runId: 'R' });
      expect(await stored()).toEqual(['Duration@Session=4200', 'Flaky@Session=42', ...Array(toolCalls).fill('Flaky@ToolCall=42')].sort());

      mode = 'fail';
      const [failed] = await client.computeAndStore(session!.id, { runId: 'R' });
      // The ids the failures would have had are the ids the earlier run stored.
      const expected = [
        resultId(resultIdPrefix('R', session!.id, 'acme', 'Flaky', 'Session'), session!.id),
        ...session!.toolCalls.map((c) => resultId(resultIdPrefix('R', session!.id, 'acme', 'Flaky', 'ToolCall'), c.id)),
      ];
      expect([...unstoredResultIds(failed!)].sort()).toEqual(expected.sort());
      expect(await stored()).toEqual(['Duration@Session=4200']);

      mode = 'score';
      await client.computeAndStore(session!.id, { runId: 'R' });
      mode = 'skip';
      await client.computeAndStore(session!.id, { runId: 'R' });
      expect(await stored()).toEqual(['Duration@Session=4200']);

      // Another run's scores are not touched (run S adds its own Duration beside R's).
      mode = 'score';
      await client.computeAndStore(session!.id, { runId: 'S' });
      mode = 'fail';
      await client.computeAndStore(session!.id, { runId: 'R' });
      expect(await stored()).toEqual(
        ['Duration@Session=4200', 'Duration@Session=4200', 'Flaky@Session=42', ...Array(toolCalls).fill('Flaky@ToolCall=42')].sort(),
      );
    } finally {
      await client.store.close();
      await client.close();
    }
  });
});
