/** Stored results by metric name (of a session, and across sessions), with the metric's provider not loaded (a plugin removed since, say). */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MetricSelectionError, type Metric, type MetricProvider } from '@mce/core';
import { MCEClient, defaultMceConfig, openStore, readSessions } from '../src/index.js';

const callScore: Metric = {
  metadata: {
    name: 'CallScore', provider: 'acme', levels: ['ToolCall'], nature: 'deterministic', unit: 'count',
    valueRange: 'non-negative number', description: 'test', requirements: [], dependsOn: [],
  },
  compute: () => ({ value: 7 }),
};
const acme: MetricProvider = { name: 'acme', description: 'test', version: '1.0.0', metrics: () => [callScore] };

describe('MCEClient construction', () => {
  it('refuses `new MCEClient()` (the seed\'s Python spelling) with the way to open one', () => {
    const Client = MCEClient as unknown as new () => MCEClient;
    expect(() => new Client()).toThrow('MCEClient has no public constructor: use `const client = await MCEClient.open(options)`');
  });
});

describe('getMetrics of metrics never stored for the session', () => {
  it('computes them, returns them after the stored ones, and stores them only when asked', async () => {
    const url = `sqlite:${join(mkdtempSync(join(tmpdir(), 'mce-get-')), 'kg.db')}`;
    const [session] = (await readSessions(new URL('../../../examples/sessions/single-agent-tool.json', import.meta.url).pathname)).sessions;
    const client = await MCEClient.open({ config: defaultMceConfig(), store: await openStore(url), cache: false });
    try {
      await client.store.writeSessions([session!]);
      await client.computeAndStore(session!.id, { metrics: ['Duration'], recursive: false });
      const told: [string[], boolean][] = [];
      const onComputed = (c: { results: { name: string }[] }, stored: boolean) => told.push([c.results.map((r) => r.name), stored]);
      const got = await client.getMetrics(session!.id, { metricIds: ['Duration', 'LLMCallCount'], onComputed });
      expect(got.map((r) => [r.name, r.result])).toEqual([['Duration', 4200], ['LLMCallCount', 2]]);
      expect(told).toEqual([[['LLMCallCount'], false]]);
      // Not stored: asked again, it is computed again; stored only stored results are read.
      expect((await client.getMetrics(session!.id, { metricIds: ['LLMCallCount'], computeMissing: false })).map((r) => r.name)).toEqual([]);
      await client.getMetrics(session!.id, { metricIds: ['LLMCallCount'], store: true, onComputed });
      expect(told[1]).toEqual([['LLMCallCount'], true]);
      const stored = await client.getMetrics(session!.id, { metricIds: ['LLMCallCount'], computeMissing: false });
      expect(stored.map((r) => [r.name, r.result])).toEqual([['LLMCallCount', 2]]);
      expect(told).toHaveLength(2); // stored now: nothing computed again
      await client.getMetrics(session!.id, { metricIds: ['LLMCallCount'], onComputed });
      expect(told).toHaveLength(2);
    } finally {
      await client.store.close();
      await client.close();
    }
  });
});

describe('getMetrics by name', () => {
  it('finds results stored at the calls of a metric no longer registered, at any level asked; a name nobody has is an error', async () => {
    const url = `sqlite:${join(mkdtempSync(join(tmpdir(), 'mce-get-')), 'kg.db')}`;
    const [session] = (await readSessions(new URL('../../../examples/sessions/single-agent-tool.json', import.meta.url).pathname)).sessions;
    const config = { ...defaultMceConfig(), metrics: { ToolCall: ['acme:CallScore'] } };
    const withPlugin = await MCEClient.open({ config, store: await openStore(url), providers: [acme], cache: false });
    await withPlugin.store.writeSessions([session!]);
    await withPlugin.computeAndStore(session!.id);
    await withPlugin.store.close();
    await withPlugin.close();

    const without = await MCEClient.open({ config: defaultMceConfig(), store: await openStore(url), cache: false });
    for (const name of ['CallScore', 'acme:CallScore']) {
      expect((await without.getMetrics(session!.id, { metricIds: [name], recursive: true })).map((r) => r.result), name).toEqual([7]);
      expect(await without.getMetrics(session!.id, { metricIds: [name] }), name).toEqual([]); // stored, at the calls
    }
    await expect(without.getMetrics(session!.id, { metricIds: ['other:CallScore'] })).rejects.toBeInstanceOf(MetricSelectionError);
    await without.store.close();
    await without.close();
  });
});

describe('queryResults and summarizeResults by name', () => {
  it('finds results across sessions of a metric no longer registered, by name or provider:name; a name nobody has is an error', async () => {
    const url = `sqlite:${join(mkdtempSync(join(tmpdir(), 'mce-query-')), 'kg.db')}`;
    const [session] = (await readSessions(new URL('../../../examples/sessions/single-agent-tool.json', import.meta.url).pathname)).sessions;
    const config = { ...defaultMceConfig(), metrics: { ToolCall: ['acme:CallScore'] } };
    const withPlugin = await MCEClient.open({ config, store: await openStore(url), providers: [acme], cache: false });
    await withPlugin.store.writeSessions([session!, { ...session!, id: 'second' }]);
    await withPlugin.computeAndStore([session!.id, 'second']);
    await withPlugin.store.close();
    await withPlugin.close();

    const without = await MCEClient.open({ config: defaultMceConfig(), store: await openStore(url), cache: false });
    for (const name of ['CallScore', 'acme:CallScore']) {
      const rows = await without.queryResults({ metrics: [name] });
      expect(rows.map((r) => [r.result.sessionId, r.result.measures.level, r.result.result, r.metric.id]).sort(), name).toEqual([
        ['second', 'ToolCall', 7, 'acme:CallScore'],
        ['weather-001', 'ToolCall', 7, 'acme:CallScore'],
      ]);
    }
    expect(await without.queryResults({ metrics: ['Duration'] })).toEqual([]); // registered, none stored: no error
    const unknown = (metrics: string[]) => without.queryResults({ metrics }).then(() => 'answered', (e: Error) => [e.constructor.name, e.message]);
    expect(await unknown(['Durration', 'CallScore'])).toEqual(['MetricSelectionError', 'Unknown metric "Durration" (did you mean "Duration"?)']);
    expect(await unknown(['other:CallScore'])).toEqual(['MetricSelectionError', expect.stringMatching(/^Unknown metric "other:CallScore"/)]);

    // The summary: the same metrics known, the same error for one neither registered nor stored.
    const [summary] = await without.summarizeResults({ metrics: ['CallScore'] });
    expect([summary?.metric.id, summary?.level, summary?.count, summary?.mean, summary?.sessions]).toEqual(['acme:CallScore', 'ToolCall', 2, 7, 2]);
    expect(await without.summarizeResults({ metrics: ['Duration'] })).toEqual([]);
    const unknownSummary = (metrics: string[]) => without.summarizeResults({ metrics }).then(() => 'answered', (e: Error) => [e.constructor.name, e.message]);
    expect(await unknownSummary(['acme:CallScore', 'Durration'])).toEqual(['MetricSelectionError', 'Unknown metric "Durration" (did you mean "Duration"?)']);
    await without.store.close();
    await without.close();
  });
});
