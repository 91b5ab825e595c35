/** The MCP metrics in the native provider and through the MetricEngine. */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MCP_SPECS, MetricEngine, toMetricResult, validateMetricResult } from '@mce/core';
import * as exports from '../../src/index.js';
import { MCPTaskCompletion, MCPUse, MultiTurnMCPUse, NATIVE_PROVIDER_REF, nativeProvider, setPersistedEvalMode } from '../../src/index.js';
import { weatherSession } from './support/mcp-session.js';

describe('the native provider', () => {
  it('lists the three MCP metrics, loadable by their portable refs, as the core spec catalog describes them', () => {
    const listed = nativeProvider.metrics();
    for (const m of [MCPUse, MultiTurnMCPUse, MCPTaskCompletion]) {
      expect(listed).toContain(m);
      expect(m.portable).toEqual({ module: '@mce/provider-native', exportName: m.metadata.name });
      expect((exports as Record<string, unknown>)[m.metadata.name]).toBe(m);
      const spec = MCP_SPECS.find((s) => s.name === m.metadata.name)!;
      expect(m.metadata).toMatchObject({
        provider: 'mce',
        levels: spec.levels,
        nature: 'llm-judged',
        unit: 'dimensionless',
        valueRange: '0.0-1.0',
        requirements: spec.requirements,
        dependsOn: [],
      });
    }
  });
});

describe('through the MetricEngine', () => {
  it('system_one from the per-metric options: results at Session and AgentCall, no model, zero cost, valid MetricResults', async () => {
    const engine = new MetricEngine({ strategy: 'asyncio' });
    engine.registerProvider(nativeProvider);
    const session = weatherSession();
    const options = { eval_mode: 'system_one' };
    const out = await engine.computeLoadedSession(session, {
      metrics: { Session: ['MCPUse', 'MultiTurnMCPUse', 'MCPTaskCompletion'], AgentCall: ['MCPUse'] },
      metricOptions: { MCPUse: options, MultiTurnMCPUse: options, MCPTaskCompletion: options },
    });
    await engine.close();
    expect(out.failed).toEqual([]);
    expect(out.results.map((r) => [r.name, r.level, r.measures]).sort()).toEqual([
      ['MCPTaskCompletion', 'Session', 'mcp-weather'],
      ['MCPUse', 'AgentCall', 'agent-1'],
      ['MCPUse', 'Session', 'mcp-weather'],
      ['MultiTurnMCPUse', 'Session', 'mcp-weather'],
    ]);
    for (const r of out.results) {
      expect(r).toMatchObject({ provider: 'mce', unit: 'dimensionless', evaluationModel: null, evaluationTotalTokenCount: 0, evaluationCost: 0 });
      expect(r.result).toBeGreaterThan(0.5); // a clean session
      expect(r.details).toMatchObject({ evalMode: 'system_one', evalModeSource: 'metric' });
      expect(validateMetricResult(toMetricResult(r, session.id))).toEqual([]);
    }
  });

  it('reports a session without MCP servers as skipped with the reason', async () => {
    const engine = new MetricEngine({ strategy: 'asyncio' });
    engine.registerProvider(nativeProvider);
    const out = await engine.computeLoadedSession(weatherSession({ servers: [] }), {
      metrics: { Session: ['MCPUse'] },
      metricOptions: { MCPUse: { eval_mode: 'system_one' } },
    });
    await engine.close();
    expect(out.results).toEqual([]);
    expect(out.skipped).toEqual([
      { name: 'MCPUse', level: 'Session', measures: 'mcp-weather', reason: 'no MCP server is available to this session: there is no MCP use to judge' },
    ]);
  });
});

// Worker threads import the built package (dist), as in production; `npm test` builds before running the suite.
const built = existsSync(new URL('../../dist/index.js', import.meta.url));
describe.skipIf(!built)('thread strategy', () => {
  it('metrics in worker threads see the persisted eval mode set in the main thread', async () => {
    setPersistedEvalMode('system_one');
    const engine = new MetricEngine({ strategy: 'thread', maxWorkers: 1 });
    try {
      engine.registerProvider(nativeProvider, NATIVE_PROVIDER_REF);
      const out = await engine.computeLoadedSession(weatherSession(), { metrics: { Session: ['MCPUse'] } });
      expect(out.failed).toEqual([]);
      expect(out.results[0]!.details).toMatchObject({ evalMode: 'system_one', evalModeSource: 'user-config' });
    } finally {
      setPersistedEvalMode(undefined);
      await engine.close();
    }
  });
});
