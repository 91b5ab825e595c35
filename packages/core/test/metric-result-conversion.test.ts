/** ResultRecord ⇄ ontology MetricResult: the exact shape written to the knowledge graph, and a lossless round trip. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MetricEngine, ONTOLOGY_LEVELS, toMetricResult, toResultRecord, type ResultRecord } from '../src/index.js';
import { metric } from './helpers/metrics.js';
import { resultRecord } from './helpers/records.js';
import { sampleSession } from './helpers/sessions.js';

const record: ResultRecord = resultRecord({
  id: '0f3a9c1e-2b4d-4e6f-8a0b-1c2d3e4f5a6b',
  name: 'ToolErrorRate',
  provider: 'mce',
  level: 'AgentCall',
  measures: 'agent-1',
  result: 50,
  unit: '%',
  timestamp: '2026-11-30T07:00:00.000Z',
});

describe('toMetricResult', () => {
  it('maps a record to the ontology MetricResult of its session', () => {
    expect(toMetricResult(record, 's-1')).toStrictEqual({
      id: '0f3a9c1e-2b4d-4e6f-8a0b-1c2d3e4f5a6b',
      name: 'ToolErrorRate',
      result: 50,
      reasoning: '',
      evaluationModel: null,
      evaluationPromptTokenCount: 0,
      evaluationCompletionTokenCount: 0,
      evaluationTotalTokenCount: 0,
      evaluationCost: 0,
      timestamp: '2026-11-30T07:00:00.000Z',
      ofMetricType: 'mce:ToolErrorRate',
      measures: { level: 'AgentCall', id: 'agent-1' },
      sessionId: 's-1',
    });
    expect(toMetricResult({ ...record, details: { errors: 1 } }, 's-1').details).toEqual({ errors: 1 });
    expect(toMetricResult(record, 's-1', 'other:Id').ofMetricType).toBe('other:Id');
  });

  it('property: toResultRecord(toMetricResult(r)) gives r back, for any record', () => {
    const records = fc.record(
      {
        id: fc.string(),
        name: fc.string(),
        provider: fc.string(),
        level: fc.constantFrom(...ONTOLOGY_LEVELS),
        measures: fc.string(),
        result: fc.double(),
        unit: fc.string(),
        reasoning: fc.string(),
        evaluationModel: fc.option(fc.string(), { nil: null }),
        evaluationPromptTokenCount: fc.nat(),
        evaluationCompletionTokenCount: fc.nat(),
        evaluationTotalTokenCount: fc.nat(),
        evaluationCost: fc.double(),
        timestamp: fc.string(),
        details: fc.dictionary(fc.string(), fc.jsonValue()),
      },
      { requiredKeys: ['id', 'name', 'provider', 'level', 'measures', 'result', 'unit', 'reasoning', 'evaluationModel',
        'evaluationPromptTokenCount', 'evaluationCompletionTokenCount', 'evaluationTotalTokenCount', 'evaluationCost', 'timestamp'] },
    );
    fc.assert(
      fc.property(records, fc.string(), (r, sessionId) => {
        const stored = toMetricResult(r, sessionId);
        expect(stored.sessionId).toBe(sessionId);
        // (fast-check builds null-prototype records: compare own fields.)
        expect({ ...toResultRecord(stored, { computedBy: r.provider, unit: r.unit }) }).toStrictEqual({ ...r });
      }),
      { numRuns: 1000 },
    );
  });
});

describe('toResultRecord', () => {
  it('a record read back has the key order of a computed one (JSON output is the same shape)', async () => {
    const engine = new MetricEngine({ maxWorkers: 1 });
    engine.registerMetric(metric('Plain', ['Session'], () => ({ value: 1 })));
    engine.registerMetric(metric('Detailed', ['Session'], () => ({ value: 2, reasoning: 'why', details: { parts: 2 } })));
    const { results } = await engine.computeLoadedSession(sampleSession(), { runId: 'keys' });
    expect(results.map((r) => r.name)).toEqual(['Plain', 'Detailed']);
    for (const computed of results) {
      const readBack = toResultRecord(toMetricResult(computed, 's1'), { computedBy: computed.provider, unit: computed.unit });
      // toStrictEqual ignores key order; the printed JSON does not.
      expect(Object.keys(readBack)).toEqual(Object.keys(computed));
      expect(JSON.stringify(readBack)).toBe(JSON.stringify(computed));
    }
  });
});
