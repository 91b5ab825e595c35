import { describe, expect, it } from 'vitest';
import type { MetricOutcome, ToolCall } from '@mce/core';
import {
  InMemoryDataProvider,
  MetricEngine,
  MetricSelectionError,
  SessionNotFoundError,
  resultId,
  resultIdPrefix,
  skip,
  validateMetricResult,
  toMetricResult,
  unstoredResultIds,
} from '@mce/core';
import { constant, metric } from './helpers/metrics.js';
import { sampleSession } from './helpers/sessions.js';

const duration = metric('Dur', ['Session', 'MASCall', 'AgentCall', 'TaskCall', 'LLMCall', 'ToolCall'], (e) => ({
  value: e.endTime - e.startTime,
}), { unit: 'ms' });

const meanLLM = metric(
  'MeanLLMDur',
  ['Session'],
  (_s, ctx) => {
    const values = ctx.results.all('Dur').filter((r) => r.measures.level === 'LLMCall').map((r) => r.result);
    return { value: values.reduce((a, b) => a + b, 0) / values.length, reasoning: `mean of ${values.length}` };
  },
  { nature: 'aggregate', dependsOn: ['Dur'], unit: 'ms' },
);

function engineWith(...metrics: Parameters<MetricEngine['registerMetric']>[0][]): MetricEngine {
  const engine = new MetricEngine({ maxWorkers: 2 });
  for (const m of metrics) engine.registerMetric(m);
  return engine;
}

describe('MetricEngine', () => {
  it('computes each metric on every element of its levels, with the stable record shape', async () => {
    const engine = engineWith(duration, meanLLM);
    const run = await engine.computeLoadedSession(sampleSession(), { runId: 'run-1' });
    expect(run.sessionId).toBe('s1');
    expect(run.results.map((r) => [r.name, r.level, r.measures, r.result])).toEqual([
      ['Dur', 'Session', 's1', 100],
      ['Dur', 'MASCall', 's1-m1', 100],
      ['Dur', 'AgentCall', 's1-a1', 60],
      ['Dur', 'AgentCall', 's1-a2', 40],
      ['Dur', 'TaskCall', 's1-k1', 20],
      ['Dur', 'LLMCall', 's1-l1', 10],
      ['Dur', 'LLMCall', 's1-l2', 30],
      ['Dur', 'LLMCall', 's1-l3', 30],
      ['Dur', 'ToolCall', 's1-t1', 5],
      ['Dur', 'ToolCall', 's1-t2', 15],
      ['MeanLLMDur', 'Session', 's1', 70 / 3],
    ]);
    const mean = run.results.at(-1)!;
    expect(mean).toEqual({
      id: mean.id,
      name: 'MeanLLMDur',
      provider: 'test',
      level: 'Session',
      measures: 's1',
      result: 70 / 3,
      unit: 'ms',
      reasoning: 'mean of 3',
      evaluationModel: null,
      evaluationPromptTokenCount: 0,
      evaluationCompletionTokenCount: 0,
      evaluationTotalTokenCount: 0,
      evaluationCost: 0,
      timestamp: mean.timestamp,
    });
    expect(mean.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(new Date(mean.timestamp).toISOString()).toBe(mean.timestamp);
    // No details: no `details` key at all (JSON output and key order are part of the stable shape).
    expect(Object.keys(mean)).toEqual([
      'id', 'name', 'provider', 'level', 'measures', 'result', 'unit', 'reasoning', 'evaluationModel',
      'evaluationPromptTokenCount', 'evaluationCompletionTokenCount', 'evaluationTotalTokenCount', 'evaluationCost',
      'timestamp',
    ]);
    expect(run.failed).toEqual([]);
    expect(run.skipped).toEqual([]);
    for (const r of run.results) expect(validateMetricResult(toMetricResult(r, 's1'))).toEqual([]);
  });

  it('reports the evaluation usage a metric returns', async () => {
    const judged = metric('Judge', ['Session'], () => ({
      value: 0.75,
      reasoning: 'Score: 4',
      details: { samples: 1 },
      evaluation: { model: 'gpt-4o-mini', promptTokens: 120, completionTokens: 8, totalTokens: 128, costUsd: 0.0000228 },
    }), { nature: 'llm-judged' });
    const [result] = (await engineWith(judged).computeLoadedSession(sampleSession())).results;
    expect(result).toMatchObject({
      result: 0.75,
      reasoning: 'Score: 4',
      details: { samples: 1 },
      evaluationModel: 'gpt-4o-mini',
      evaluationPromptTokenCount: 120,
      evaluationCompletionTokenCount: 8,
      evaluationTotalTokenCount: 128,
      evaluationCost: 0.0000228,
    });
    expect(Object.keys(result!).at(-1)).toBe('details');
    expect(Object.keys(result!)).toHaveLength(15);
    // A judge that used no tokens (a local model, say) is a usage like any other.
    const free = metric('Free', ['Session'], () => ({ value: 1, evaluation: { model: 'local', promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0 } }), { nature: 'llm-judged' });
    const run = await engineWith(free).computeLoadedSession(sampleSession());
    expect(run.failed).toEqual([]);
    expect(run.results.map((r) => [r.evaluationModel, r.evaluationPromptTokenCount, r.evaluationCompletionTokenCount, r.evaluationTotalTokenCount, r.evaluationCost])).toEqual([
      ['local', 0, 0, 0, 0],
    ]);
  });

  it('isolates failures: thrown errors, rejections, non-finite values and malformed outcomes are FailedRecords', async () => {
    const outcomes: Record<string, () => MetricOutcome | Promise<MetricOutcome>> = {
      's1-l1': () => {
        throw new Error('boom');
      },
      's1-l2': () => ({ value: Number.NaN }),
      's1-l3': () => Promise.reject(new RangeError('bad range')),
    };
    const flaky = metric('Flaky', ['LLMCall'], (e) => outcomes[e.id]!());
    const weird = metric('Weird', ['ToolCall'], (e: ToolCall) =>
      e.id === 's1-t1' ? ({ value: '3' } as unknown as MetricOutcome) : { value: Infinity },
    );
    const badUsage = metric('BadUsage', ['Session'], () => ({
      value: 0.5,
      evaluation: { model: 'm', promptTokens: -1, completionTokens: 0, totalTokens: 0, costUsd: 0 },
    }));
    const nothing = metric('Nothing', ['TaskCall'], () => undefined as unknown as MetricOutcome);
    const ok = metric('Ok', ['Session'], constant(7));
    const run = await engineWith(flaky, weird, badUsage, nothing, ok).computeLoadedSession(sampleSession());
    expect(run.failed).toEqual([
      { name: 'Flaky', level: 'LLMCall', measures: 's1-l1', error: 'boom' },
      { name: 'Flaky', level: 'LLMCall', measures: 's1-l2', error: 'non-finite value: NaN' },
      { name: 'Flaky', level: 'LLMCall', measures: 's1-l3', error: 'RangeError: bad range' },
      { name: 'Weird', level: 'ToolCall', measures: 's1-t1', error: 'invalid outcome: value is "3", not a number' },
      { name: 'Weird', level: 'ToolCall', measures: 's1-t2', error: 'non-finite value: Infinity' },
      { name: 'BadUsage', level: 'Session', measures: 's1', error: 'invalid evaluation usage: promptTokens is -1' },
      { name: 'Nothing', level: 'TaskCall', measures: 's1-k1', error: 'invalid outcome: undefined' },
    ]);
    expect(run.results.map((r) => [r.name, r.result])).toEqual([['Ok', 7]]);
  });

  it('details JSON cannot hold are the element\'s failure, unless the provider vouches for its details', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const odd = metric('Odd', ['ToolCall', 'LLMCall'], (e: ToolCall) => ({ value: 1, details: e.id === 's1-t1' ? { big: 10n } : e.id === 's1-t2' ? cyclic : { ok: true } }));
    const run = await engineWith(odd).computeLoadedSession(sampleSession(), { runId: 'r' });
    // Their ids are not stored this time: a re-run of the run id removes what an earlier attempt stored under them.
    const prefix = resultIdPrefix('r', 's1', 'test', 'Odd', 'ToolCall');
    expect(unstoredResultIds(run)).toEqual([resultId(prefix, 's1-t1'), resultId(prefix, 's1-t2')]);
    expect(run.failed.map((f) => [f.measures, f.error.split(': ').slice(0, 2).join(': ')])).toEqual([
      ['s1-t1', 'invalid outcome: details cannot be written as JSON'],
      ['s1-t2', 'invalid outcome: details cannot be written as JSON'],
    ]);
    expect(run.failed[0]!.error).toBe('invalid outcome: details cannot be written as JSON: Do not know how to serialize a BigInt');
    expect(run.results.map((r) => r.details)).toEqual(run.results.map(() => ({ ok: true })));
    expect(run.results.length).toBeGreaterThan(0);
    // A provider that vouches (jsonDetails) is taken at its word: no serialisation per record.
    const vouched = new MetricEngine({ maxWorkers: 2 });
    vouched.registerProvider({ name: 'test', description: 'd', version: '1', metrics: () => [odd], jsonDetails: true });
    expect((await vouched.computeLoadedSession(sampleSession())).failed).toEqual([]);
  });

  it('reports skip() outcomes as skipped, never scored', async () => {
    const maybe = metric('Maybe', ['AgentCall'], (a) => (a.id === 's1-a1' ? skip('no transition') : { value: 1 }));
    const run = await engineWith(maybe).computeLoadedSession(sampleSession());
    expect(run.skipped).toEqual([{ name: 'Maybe', level: 'AgentCall', measures: 's1-a1', reason: 'no transition' }]);
    expect(run.results.map((r) => r.measures)).toEqual(['s1-a2']);
  });

  it('gives deterministic ids: same runId → same ids, another runId or session → other ids', async () => {
    const engine = engineWith(duration);
    const ids = async (runId?: string, id = 's1') =>
      (await engine.computeLoadedSession(sampleSession(id), runId === undefined ? {} : { runId })).results.map((r) => r.id);
    const a = await ids('run-1');
    expect(await ids('run-1')).toEqual(a);
    expect(new Set(a).size).toBe(10);
    const b = await ids('run-2');
    expect(b.filter((id) => a.includes(id))).toEqual([]);
    const random1 = await ids();
    const random2 = await ids();
    expect(random1.filter((id) => random2.includes(id))).toEqual([]);
    // Same span ids in another session do not collide.
    const other = sampleSession('s1');
    other.id = 's2';
    const c = (await engine.computeLoadedSession(other, { runId: 'run-1' })).results.map((r) => r.id);
    expect(c.filter((id) => a.includes(id))).toEqual([]);
  });

  it('gives each result the id resultId(resultIdPrefix(runId, session, provider, metric, level), measured id)', async () => {
    // Two metrics on the same levels share the element half of their ids (hashed once per session).
    const engine = engineWith(duration, metric('Other', ['LLMCall', 'ToolCall'], constant(1)));
    const run = await engine.computeLoadedSession(sampleSession(), { runId: 'run-1' });
    expect(run.results).toHaveLength(15);
    for (const r of run.results) {
      expect(r.id).toBe(resultId(resultIdPrefix('run-1', 's1', 'test', r.name, r.level), r.measures));
    }
    expect(run.results[0]?.id).toBe(resultId(resultIdPrefix('run-1', 's1', 'test', 'Dur', 'Session'), 's1'));
  });

  it('computes only the Session-level selection when not recursive, dependencies included', async () => {
    const engine = engineWith(duration, meanLLM);
    const run = await engine.computeLoadedSession(sampleSession(), {
      recursive: false,
      metrics: { Session: ['MeanLLMDur'], ToolCall: ['Dur'] },
    });
    // Dur at every level is computed because MeanLLMDur depends on it; ToolCall selection alone would not be.
    expect(run.results.map((r) => `${r.name}@${r.level}`)).toHaveLength(11);
    const onlySession = await engine.computeLoadedSession(sampleSession(), { recursive: false, metrics: { ToolCall: ['Dur'] } });
    expect(onlySession.results).toEqual([]);
    const byName = await engine.computeLoadedSession(sampleSession(), { recursive: false, metrics: ['Dur'] });
    expect(byName.results.map((r) => `${r.name}@${r.level}=${r.result}`)).toEqual(['Dur@Session=100']);
    const defaults = await engine.computeLoadedSession(sampleSession(), { recursive: false });
    expect(defaults.results.map((r) => r.name)).toEqual(['Dur', 'MeanLLMDur'].flatMap((n) => (n === 'Dur' ? Array(10).fill(n) : [n])));
  });

  it('reports auto-included dependencies unless reportDependencies is false', async () => {
    const engine = engineWith(duration, meanLLM);
    const selection = { metrics: { Session: ['MeanLLMDur'] } };
    expect((await engine.computeLoadedSession(sampleSession(), selection)).results).toHaveLength(11);
    const only = await engine.computeLoadedSession(sampleSession(), { ...selection, reportDependencies: false });
    expect(only.results.map((r) => `${r.name}@${r.level}=${r.result}`)).toEqual([`MeanLLMDur@Session=${70 / 3}`]);
    const both = await engine.computeLoadedSession(sampleSession(), {
      metrics: { Session: ['MeanLLMDur'], ToolCall: ['Dur'] },
      reportDependencies: false,
    });
    expect(both.results.map((r) => `${r.name}@${r.measures}`)).toEqual(['Dur@s1-t1', 'Dur@s1-t2', 'MeanLLMDur@s1']);
  });

  it('stops between stages when the signal is aborted, and hands the signal to metrics', async () => {
    const controller = new AbortController();
    const seen: boolean[] = [];
    const aborting = metric('Aborting', ['Session'], (_s, ctx) => {
      seen.push(ctx.signal === controller.signal);
      controller.abort(new Error('user cancelled'));
      return { value: 1 };
    });
    const after = metric('After', ['Session'], () => ({ value: 2 }), { dependsOn: ['Aborting'] });
    const engine = engineWith(aborting, after);
    await expect(engine.computeLoadedSession(sampleSession(), { signal: controller.signal })).rejects.toThrow('user cancelled');
    expect(seen).toEqual([true]);
    // Aborted during the last (here: only) stage: rejects too, rather than resolving with the results.
    const last = new AbortController();
    const lastOne = metric('LastOne', ['Session'], () => (last.abort(new Error('cancelled late')), { value: 1 }));
    await expect(engineWith(lastOne).computeLoadedSession(sampleSession(), { signal: last.signal })).rejects.toThrow('cancelled late');
  });

  it('a batch that fails stops taking sessions; the sessions already running end', async () => {
    const computed: string[] = [];
    const failing = metric('Failing', ['Session'], async (s) => {
      computed.push(s.id);
      await new Promise((r) => setTimeout(r, 5));
      if (s.id === 'b1') throw new Error('boom');
      return { value: 1 };
    });
    const engine = new MetricEngine({ maxWorkers: 2 });
    engine.registerMetric(failing);
    const sessions = Array.from({ length: 20 }, (_, i) => sampleSession(`b${i}`));
    let streamed = 0;
    const onResults = () => {
      streamed++;
      if (streamed === 2) throw new Error('consumer failed');
    };
    await expect(engine.computeLoadedSessions(sessions, { onResults })).rejects.toThrow('consumer failed');
    await new Promise((r) => setTimeout(r, 50));
    expect(computed.length).toBeLessThanOrEqual(3); // two lanes: the failing session, the other lane's one, maybe one more started
  });

  it('tells a provider when it is done with each session, whatever the outcome, after its last metric ran', async () => {
    const events: string[] = [];
    const controller = new AbortController();
    const ok = metric('Ok', ['Session'], (s) => {
      events.push(`compute ${s.id}`);
      return { value: 1 };
    });
    const failing = metric('Failing', ['Session'], () => {
      throw new Error('boom');
    });
    const aborting = metric('Aborting', ['Session'], (s) => {
      if (s.id === 's3') controller.abort(new Error('user cancelled'));
      return { value: 1 };
    }, { dependsOn: ['Ok'] });
    const after = metric('After', ['Session'], () => ({ value: 2 }), { dependsOn: ['Aborting'] });
    const engine = new MetricEngine({ maxWorkers: 1 });
    engine.registerProvider({
      name: 'test',
      description: 'caches per session',
      version: '1',
      metrics: () => [ok, failing, aborting, after],
      releaseSession: (s) => events.push(`release ${s.id}`),
    });
    const [one, two] = await engine.computeLoadedSessions([sampleSession('s1'), sampleSession('s2')]);
    expect(one?.failed.map((f) => f.error)).toEqual(['boom']);
    expect(two?.results.map((r) => r.name)).toEqual(['Ok', 'Aborting', 'After']);
    await expect(engine.computeLoadedSession(sampleSession('s3'), { signal: controller.signal })).rejects.toThrow('user cancelled');
    expect(events).toEqual(['compute s1', 'release s1', 'compute s2', 'release s2', 'compute s3', 'release s3']);
  });

  it('computes a per-level selection', async () => {
    const engine = engineWith(duration, meanLLM);
    const run = await engine.computeLoadedSession(sampleSession(), { metrics: { ToolCall: ['Dur'], AgentCall: ['Dur'] } });
    expect(run.results.map((r) => `${r.level}:${r.measures}=${r.result}`)).toEqual([
      'ToolCall:s1-t1=5',
      'ToolCall:s1-t2=15',
      'AgentCall:s1-a1=60',
      'AgentCall:s1-a2=40',
    ]);
  });

  it('rejects a metric selected at a level it does not support before computing anything', async () => {
    let calls = 0;
    const counted = metric('Counted', ['Session'], () => ({ value: ++calls }));
    const engine = engineWith(counted, duration);
    const refused = await engine.computeLoadedSession(sampleSession(), { metrics: { Session: ['Counted'], LLMCall: ['Counted'] } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MetricSelectionError);
    expect((refused as MetricSelectionError).message).toBe('Metric "test:Counted" does not support level LLMCall (it supports Session)');
    // Each problem names the request it is about (a configuration file can then name its line).
    expect((refused as MetricSelectionError).selections).toEqual([
      { metric: 'Counted', level: 'LLMCall', problem: 'Metric "test:Counted" does not support level LLMCall (it supports Session)' },
    ]);
    await expect(engine.computeLoadedSession(sampleSession(), { metrics: ['Counted', 'Unknown'] })).rejects.toThrow(
      'Unknown metric "Unknown" selected at Session',
    );
    expect(calls).toBe(0);
  });

  it('gives metrics the results of this session run (get and all), successful ones only', async () => {
    const half = metric('Half', ['ToolCall'], (t) => (t.id === 's1-t2' ? { value: Number.NaN } : { value: 0.5 }));
    const seen: string[] = [];
    const agg = metric(
      'Agg',
      ['Session'],
      (_s, ctx) => {
        seen.push(String(ctx.results.get('Half', 's1-t1')?.result), String(ctx.results.get('Half', 's1-t2')));
        seen.push(ctx.results.all('test:Half').map((r) => `${r.measures.level}/${r.measures.id}/${r.ofMetricType}`).join());
        return { value: ctx.results.all('Half').length };
      },
      { dependsOn: ['Half'], nature: 'aggregate' },
    );
    const run = await engineWith(half, agg).computeLoadedSession(sampleSession());
    expect(seen).toEqual(['0.5', 'undefined', 'ToolCall/s1-t1/test:Half']);
    expect(run.results.find((r) => r.name === 'Agg')?.result).toBe(1);
  });

  it('valuesAt gives the successful results of one level in all() order, by name or provider:name', async () => {
    const dur = metric('Dur', ['Session', 'ToolCall'], (e) => (e.id === 's1-t2' ? { value: Number.NaN } : { value: e.id.length }));
    const seen: string[] = [];
    const agg = metric(
      'Agg',
      ['Session'],
      (_s, ctx) => {
        const viaAll = ctx.results.all('Dur').filter((r) => r.measures.level === 'ToolCall').map((r) => r.result);
        seen.push(JSON.stringify(ctx.results.valuesAt?.('Dur', 'ToolCall')), JSON.stringify(viaAll));
        seen.push(JSON.stringify(ctx.results.valuesAt?.('test:Dur', 'Session')), JSON.stringify(ctx.results.valuesAt?.('Dur', 'LLMCall')));
        seen.push(JSON.stringify(ctx.results.valuesAt?.('Nothing', 'Session')));
        return { value: 0 };
      },
      { dependsOn: ['Dur'], nature: 'aggregate' },
    );
    await engineWith(dur, agg).computeLoadedSession(sampleSession());
    // sampleSession has tool calls s1-t1 and s1-t2 (NaN: failed, left out); the session id is "s1".
    expect(seen).toEqual(['[5]', '[5]', '[2]', '[]', '[]']);
  });

  it('exposes the results of the declared dependencies only, never those of the current stage', async () => {
    const a = metric('A', ['Session'], constant(1));
    const b = metric('B', ['Session'], constant(2));
    const seen: Record<string, number> = {};
    const peek = (name: string, deps: string[]) =>
      metric(name, ['Session'], (_s, ctx) => {
        seen[name] = ctx.results.all('B').length + 10 * ctx.results.all('A').length;
        return { value: 0 };
      }, { dependsOn: deps });
    await engineWith(a, b, peek('SameStage', []), peek('AfterA', ['A'])).computeLoadedSession(sampleSession());
    // SameStage runs with A and B (sees neither); AfterA runs after them and sees A, not the undeclared B: the rule of
    // the worker-thread strategies, which receive only the declared results.
    expect(seen).toEqual({ SameStage: 0, AfterA: 10 });
  });

  it('streams each task\'s records to onResults as the task finishes and returns empty lists', async () => {
    const failing = metric('Fails', ['ToolCall'], (e) => (e.id === 's1-t1' ? { value: Number.NaN } : { value: 1 }));
    const skipping = metric('Skips', ['Session'], () => skip('nothing to measure'));
    const engine = engineWith(duration, meanLLM, failing, skipping);
    const held = await engine.computeLoadedSession(sampleSession(), { runId: 'r' });
    const parts: { tasks: Set<string>; results: string[]; failed: string[]; skipped: string[] }[] = [];
    const streamed = await engine.computeLoadedSession(sampleSession(), {
      runId: 'r',
      onResults: (part) => {
        expect(part.sessionId).toBe('s1');
        parts.push({
          tasks: new Set([...part.results, ...part.failed, ...part.skipped].map((r) => `${r.name}@${r.level}`)),
          results: part.results.map((r) => `${r.id}:${r.name}@${r.level}/${r.measures}=${r.result}`),
          failed: part.failed.map((f) => `${f.name}/${f.measures}: ${f.error}`),
          skipped: part.skipped.map((k) => `${k.name}/${k.measures}: ${k.reason}`),
        });
      },
    });
    expect(streamed).toEqual({ sessionId: 's1', results: [], failed: [], skipped: [] });
    // One part per task (Dur at six levels, MeanLLMDur, Fails, Skips), each a single metric at a single level.
    expect(parts).toHaveLength(9);
    for (const part of parts) expect(part.tasks.size).toBe(1);
    const all = (key: 'results' | 'failed' | 'skipped') => parts.flatMap((p) => p[key]).sort();
    expect(all('results')).toEqual(held.results.map((r) => `${r.id}:${r.name}@${r.level}/${r.measures}=${r.result}`).sort());
    expect(all('failed')).toEqual(['Fails/s1-t1: non-finite value: NaN']);
    expect(all('skipped')).toEqual(['Skips/s1: nothing to measure']);
    // The aggregate still saw the streamed Duration results it depends on.
    expect(all('results').find((r) => r.includes('MeanLLMDur'))).toMatch(/=23\.3333/);
  });

  it('rejects the computation with the error onResults throws', async () => {
    const computation = engineWith(duration).computeLoadedSession(sampleSession(), {
      onResults: () => {
        throw new Error('consumer down');
      },
    });
    await expect(computation).rejects.toThrow('consumer down');
  });

  it('streams only the selected tasks when reportDependencies is false', async () => {
    const names: string[] = [];
    await engineWith(duration, meanLLM).computeLoadedSession(sampleSession(), {
      metrics: { Session: ['MeanLLMDur'] },
      reportDependencies: false,
      onResults: (part) => names.push(...part.results.map((r) => `${r.name}@${r.level}`)),
    });
    expect(names).toEqual(['MeanLLMDur@Session']);
  });

  it('uses computeBatch when present, and isolates its failures', async () => {
    let single = 0;
    const batched = metric('Batched', ['LLMCall'], () => ({ value: ++single }), {
      computeBatch: async (calls, ctx) => calls.map((c, i) => (i === 1 ? new Error('judge refused') : { value: c.usage.inputTokens * Number(ctx.options.k) })),
    });
    const short = metric('Short', ['ToolCall'], constant(0), { computeBatch: async () => [{ value: 1 }] });
    const broken = metric('Broken', ['AgentCall'], constant(0), {
      computeBatch: async () => {
        throw new Error('batch down');
      },
    });
    const run = await engineWith(batched, short, broken).computeLoadedSession(sampleSession(), {
      metricOptions: { Batched: { k: 2 } },
    });
    expect(single).toBe(0);
    expect(run.results.map((r) => `${r.name}:${r.measures}=${r.result}`)).toEqual(['Batched:s1-l1=200', 'Batched:s1-l3=100']);
    expect(run.failed.map((f) => `${f.name}:${f.measures}:${f.error}`)).toEqual([
      'Batched:s1-l2:judge refused',
      'Short:s1-t1:computeBatch returned 1 outcomes for 2 elements',
      'Short:s1-t2:computeBatch returned 1 outcomes for 2 elements',
      'Broken:s1-a1:batch down',
      'Broken:s1-a2:batch down',
    ]);
  });

  it('passes per-metric options by name or provider:name', async () => {
    const opt = metric('Opt', ['Session'], (_s, ctx) => ({ value: Number(ctx.options.threshold ?? -1) }));
    const engine = engineWith(opt);
    const value = async (metricOptions?: Record<string, Record<string, unknown>>) =>
      (await engine.computeLoadedSession(sampleSession(), metricOptions ? { metricOptions } : {})).results[0]?.result;
    expect(await value()).toBe(-1);
    expect(await value({ Opt: { threshold: 0.7 } })).toBe(0.7);
    expect(await value({ 'test:Opt': { threshold: 0.2 }, Opt: { threshold: 0.9 } })).toBe(0.2);
  });

  it('limits concurrent LLM-judged computations to maxWorkers', async () => {
    let active = 0;
    let peak = 0;
    const slow = metric(
      'Slow',
      ['LLMCall', 'ToolCall', 'AgentCall'],
      async () => {
        active++;
        peak = Math.max(peak, active);
        await new Promise((r) => setTimeout(r, 5));
        active--;
        return { value: 1 };
      },
      { nature: 'llm-judged' },
    );
    const run = await engineWith(slow).computeLoadedSessions([sampleSession('a'), sampleSession('b')]);
    expect(run.flatMap((s) => s.results)).toHaveLength(14);
    expect(peak).toBe(2);
  });

  it('computes sessions from the data provider, one or a batch, in order', async () => {
    const engine = engineWith(duration);
    await expect(engine.computeSession('s1')).rejects.toThrow('No data provider set: call setDataProvider() first');
    engine.setDataProvider(new InMemoryDataProvider([sampleSession('s1'), sampleSession('s2', 1000), sampleSession('s3')]));
    const one = await engine.computeSession('s2', { metrics: { Session: ['Dur'] } });
    expect(one.results.map((r) => [r.measures, r.result])).toEqual([['s2', 100]]);
    const batch = await engine.computeSessionsBatch(['s3', 's1', 's2'], { metrics: { LLMCall: ['Dur'] } });
    expect(batch.map((s) => [s.sessionId, s.results.map((r) => r.result).join()])).toEqual([
      ['s3', '10,30,30'],
      ['s1', '10,30,30'],
      ['s2', '10,30,30'],
    ]);
    await expect(engine.computeSession('nope')).rejects.toThrow(new SessionNotFoundError(['nope']));
    await expect(engine.computeSessionsBatch(['s1', 'x', 'y'])).rejects.toThrow('Sessions not found: x, y');
  });

  it('batch computation shares the runId and keeps ids per session', async () => {
    const engine = engineWith(duration);
    const sessions = [sampleSession('a'), sampleSession('b')];
    const first = await engine.computeLoadedSessions(sessions, { runId: 'r' });
    const second = await engine.computeLoadedSessions(sessions, { runId: 'r' });
    expect(second.map((s) => s.results.map((r) => r.id))).toEqual(first.map((s) => s.results.map((r) => r.id)));
    expect(new Set(first.flatMap((s) => s.results.map((r) => r.id))).size).toBe(20);
  });
});

describe('outcomes that misbehave', () => {
  it('a getter that throws, a value beside a skip reason, a thrown value that cannot be printed: each its own record', async () => {
    const odd = metric('Odd', ['LLMCall'], (call) => {
      if (call.id.endsWith('l1')) {
        return {
          get value(): number {
            throw new Error('getter boom');
          },
        } as MetricOutcome;
      }
      if (call.id.endsWith('l2')) return { value: 0, skipped: 'not applicable' } as unknown as MetricOutcome;
      throw Object.create(null, { toJSON: { value: () => { throw new Error('no json'); } } }) as unknown;
    });
    const run = await engineWith(odd).computeLoadedSession(sampleSession(), { metrics: { LLMCall: ['Odd'] }, runId: 'r' });
    expect(run.results).toEqual([]);
    const prefix = resultIdPrefix('r', 's1', 'test', 'Odd', 'LLMCall');
    expect(unstoredResultIds(run)).toEqual(['s1-l1', 's1-l2', 's1-l3'].map((id) => resultId(prefix, id)));
    expect(run.skipped).toEqual([{ name: 'Odd', level: 'LLMCall', measures: 's1-l2', reason: 'not applicable' }]);
    expect(run.failed).toEqual([
      { name: 'Odd', level: 'LLMCall', measures: 's1-l1', error: 'invalid outcome: reading it threw: getter boom' },
      { name: 'Odd', level: 'LLMCall', measures: 's1-l3', error: '(a value that cannot be printed)' },
    ]);
  });
});
