import { execFile } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { Metric, PortableMetricRef, SessionComputation, StrategyName } from '@mce/core';
import { EngineOptionError, MetricEngine, MetricTimeoutError, engineOptionsFromEnv } from '@mce/core';
import {
  aborted, busyJudged, concurrencyProbe, crash, duration, fixtureProvider, hangingBatch, hangs, limitedJudge, slow, slowDeterministic, unclonable, unreachable, where,
} from './fixtures/engine-metrics.mjs';
import { levelProvider, p1Provider, p2Provider, visibilityProvider } from './fixtures/visibility-metrics.mjs';
import { metric } from './helpers/metrics.js';
import { sampleSession } from './helpers/sessions.js';

const MODULE = new URL('./fixtures/engine-metrics.mjs', import.meta.url).href;
const ref = (exportName: string): PortableMetricRef => ({ module: MODULE, exportName });
const STRATEGIES: StrategyName[] = ['asyncio', 'thread', 'process', 'hybrid'];

const engines: MetricEngine[] = [];
function engine(strategy: StrategyName): MetricEngine {
  const e = new MetricEngine({ strategy, maxWorkers: 2 });
  engines.push(e);
  return e;
}
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
});

/** Everything but the computation time. */
const comparable = (runs: SessionComputation[]) => runs.map((r) => ({ ...r, results: r.results.map(({ timestamp: _t, ...rest }) => rest) }));

describe('execution strategies', () => {
  it('give identical results, failures and skips under asyncio, thread, process and hybrid', async () => {
    const noLLM = { ...sampleSession('d'), llmCalls: [] };
    const sessions = [sampleSession('a'), sampleSession('b', 500), sampleSession('c', 900), noLLM];
    const outputs: Record<string, ReturnType<typeof comparable>> = {};
    for (const strategy of STRATEGIES) {
      const e = engine(strategy);
      e.registerProvider(fixtureProvider, ref('createFixtureProvider'));
      outputs[strategy] = comparable(
        await e.computeLoadedSessions(sessions, { runId: 'same', metricOptions: { BatchTokens: { scale: 3 } } }),
      );
    }
    const asyncio = outputs.asyncio!;
    expect(asyncio[1]!.results.map((r) => `${r.name}@${r.measures}=${r.result}`)).toEqual([
      'Duration@b=100',
      'Duration@b-m1=100',
      'Duration@b-a1=60',
      'Duration@b-a2=40',
      'Duration@b-k1=20',
      'Duration@b-l1=10',
      'Duration@b-l2=30',
      'Duration@b-l3=30',
      'Duration@b-t1=5',
      'Duration@b-t2=15',
      'ToolOk@b-t1=1',
      'BatchTokens@b-l1=300',
      'BatchTokens@b-l2=600',
      'BatchTokens@b-l3=150',
      `MeanLLMDuration@b=${70 / 3}`,
    ]);
    expect(asyncio[1]!.failed).toEqual([{ name: 'ToolOk', level: 'ToolCall', measures: 'b-t2', error: 'TypeError: tool fetch failed' }]);
    expect(asyncio[3]!.skipped).toEqual([{ name: 'MeanLLMDuration', level: 'Session', measures: 'd', reason: 'no LLM call' }]);
    expect(outputs.thread).toEqual(asyncio);
    expect(outputs.process).toEqual(asyncio);
    expect(outputs.hybrid).toEqual(asyncio);
  });

  it('splits a heavy stage over the workers and still gives identical results', async () => {
    const big = sampleSession('big');
    const template = big.toolCalls[1]!;
    // 6,000 tool calls, every 7th failing: Duration and ToolOk make 12,000 element computations in one stage.
    big.toolCalls = Array.from({ length: 6000 }, (_, i) => ({
      ...template,
      id: `big-t${i}`,
      toolName: `tool${i % 5}`,
      startTime: i,
      endTime: i + (i % 13),
      status: i % 7 === 0 ? ('error' as const) : ('ok' as const),
    }));
    const outputs = [];
    for (const strategy of ['asyncio', 'thread', 'process'] as const) {
      const e = engine(strategy);
      e.registerProvider(fixtureProvider, ref('fixtureProvider'));
      outputs.push(comparable([await e.computeLoadedSession(big, { runId: 'r', metrics: { ToolCall: ['Duration', 'ToolOk'] } })]));
    }
    const [asyncio, thread, processes] = outputs;
    expect(asyncio![0]!.results).toHaveLength(6000 + 5142);
    expect(asyncio![0]!.failed).toHaveLength(858);
    expect(asyncio![0]!.results[12]).toMatchObject({ name: 'Duration', measures: 'big-t12', result: 12 });
    expect(asyncio![0]!.failed[1]).toEqual({ name: 'ToolOk', level: 'ToolCall', measures: 'big-t7', error: 'TypeError: tool tool2 failed' });
    expect(thread).toEqual(asyncio);
    expect(processes).toEqual(asyncio);
  });

  it('really leaves the main thread: thread → worker thread, process → child process, no ref → main thread', async () => {
    const place = async (strategy: StrategyName, portable: boolean, nature?: Metric['metadata']['nature']) => {
      const e = engine(strategy);
      const m: Metric = nature ? { ...where, metadata: { ...where.metadata, nature } } : where;
      e.registerMetric(m, portable ? ref('where') : undefined);
      const [result] = (await e.computeLoadedSession(sampleSession())).results;
      return { threadId: result!.result, samePid: result!.details?.pid === process.pid };
    };
    expect(await place('asyncio', true)).toEqual({ threadId: 0, samePid: true });
    expect((await place('thread', true)).threadId).toBeGreaterThan(0);
    expect(await place('process', true)).toEqual({ threadId: 0, samePid: false });
    expect(await place('thread', false)).toEqual({ threadId: 0, samePid: true });
    expect((await place('hybrid', true)).threadId).toBeGreaterThan(0);
    // Hybrid keeps LLM-judged work on the async pool (whose ref would have allowed a thread).
    const e = engine('hybrid');
    e.registerMetric({ ...where, metadata: { ...where.metadata, name: 'WhereJudge', nature: 'llm-judged' } }, ref('where'));
    // The worker resolves the metric by key: a renamed copy is not in the module, so it must not have been sent there.
    const run = await e.computeLoadedSession(sampleSession());
    expect(run.results.map((r) => r.result)).toEqual([0]);
  });

  it('a metric that throws in a worker becomes a FailedRecord; other metrics are unaffected', async () => {
    for (const strategy of ['thread', 'process'] as const) {
      const e = engine(strategy);
      e.registerProvider(fixtureProvider, ref('fixtureProvider'));
      const run = await e.computeLoadedSession(sampleSession(), { metrics: { ToolCall: ['ToolOk', 'Duration'] } });
      expect(run.failed).toEqual([{ name: 'ToolOk', level: 'ToolCall', measures: 's1-t2', error: 'TypeError: tool fetch failed' }]);
      expect(run.results.map((r) => `${r.name}@${r.measures}=${r.result}`)).toEqual([
        'ToolOk@s1-t1=1',
        'Duration@s1-t1=5',
        'Duration@s1-t2=15',
      ]);
    }
  });

  it('marks the failures of an unreachable service transient, in every strategy (the flag crosses the wire)', async () => {
    for (const strategy of STRATEGIES) {
      const e = engine(strategy);
      e.registerMetric(unreachable, ref('unreachable'));
      const run = await e.computeLoadedSession(sampleSession(), { metrics: { LLMCall: ['Unreachable'] } });
      expect(run.failed, strategy).toEqual([
        { name: 'Unreachable', level: 'LLMCall', measures: 's1-l1', error: 'bad input' },
        { name: 'Unreachable', level: 'LLMCall', measures: 's1-l2', error: 'service down', transient: true },
        { name: 'Unreachable', level: 'LLMCall', measures: 's1-l3', error: 'service down', transient: true },
      ]);
    }
  });

  it('a metric sees only what it declared, each provider its own, in task order — the same in every strategy', async () => {
    const VIS = new URL('./fixtures/visibility-metrics.mjs', import.meta.url).href;
    const outputs: string[][] = [];
    for (const strategy of STRATEGIES) {
      const e = engine(strategy);
      e.registerProvider(visibilityProvider, { module: VIS, exportName: 'visibilityProvider' });
      e.registerProvider(p1Provider, { module: VIS, exportName: 'p1Provider' });
      e.registerProvider(p2Provider, { module: VIS, exportName: 'p2Provider' });
      const run = await e.computeLoadedSession(sampleSession(), {
        metrics: { Session: ['A', 'C', 'XOrder', 'p1:MeanDur', 'p2:MeanDur'] },
        reportDependencies: false,
      });
      expect(run.failed, strategy).toEqual([]);
      outputs.push(run.results.map((r) => `${r.provider}:${r.name}=${r.result}`));
    }
    // A sees B (Session + 3 LLM calls); C declared D only: it sees no B. X is read in task order (Session first).
    // Each MeanDur averages its own provider's Dur (3 calls each).
    expect(outputs[0]).toEqual(['vis:A=4', 'vis:C=1', 'vis:XOrder=0', 'p1:MeanDur=10', 'p2:MeanDur=1000']);
    for (const output of outputs) expect(output).toEqual(outputs[0]);
  });

  it('an id a session shares with its MAS call is looked up at the asking metric\'s level first, in every strategy', async () => {
    const VIS = new URL('./fixtures/visibility-metrics.mjs', import.meta.url).href;
    const base = sampleSession('t1');
    const session = { ...base, masCalls: base.masCalls.map((m) => ({ ...m, id: 't1' })) };
    for (const strategy of STRATEGIES) {
      const e = engine(strategy);
      e.registerProvider(levelProvider, { module: VIS, exportName: 'levelProvider' });
      const run = await e.computeLoadedSession(session, { metrics: { Session: ['ReadTag'] }, reportDependencies: false });
      expect([run.failed, run.results.map((r) => r.result)], strategy).toEqual([[], [12]]);
    }
  });

  it('a metric a worker cannot load fails its own elements only, not the other tasks of the request', async () => {
    const onlyHere = metric('OnlyHere', ['LLMCall'], () => ({ value: 1 }));
    for (const strategy of ['thread', 'process'] as const) {
      const e = engine(strategy);
      e.registerMetric(onlyHere, ref('noSuchExport'));
      e.registerMetric(duration, ref('duration'));
      const run = await e.computeLoadedSession(sampleSession(), { metrics: { LLMCall: ['OnlyHere', 'Duration'] } });
      expect(run.results.map((r) => r.name), strategy).toEqual(['Duration', 'Duration', 'Duration']);
      expect(run.failed.map((f) => [f.name, f.measures]), strategy).toEqual([['OnlyHere', 's1-l1'], ['OnlyHere', 's1-l2'], ['OnlyHere', 's1-l3']]);
      expect(run.failed[0]!.error, strategy).toMatch(/noSuchExport/);
    }
  });

  it('an outcome a worker cannot send back fails that metric only, not the others of the request', async () => {
    for (const strategy of ['thread', 'process'] as const) {
      const e = engine(strategy);
      e.registerMetric(unclonable, ref('unclonable'));
      e.registerMetric(duration, ref('duration'));
      const run = await e.computeLoadedSession(sampleSession(), { metrics: { LLMCall: ['Unclonable', 'Duration'] } });
      expect(run.results.map((r) => `${r.name}@${r.measures}`), strategy).toEqual(['Duration@s1-l1', 'Duration@s1-l2', 'Duration@s1-l3']);
      expect(run.failed.map((f) => `${f.name}@${f.measures}`), strategy).toEqual(['Unclonable@s1-l1', 'Unclonable@s1-l2', 'Unclonable@s1-l3']);
      expect(run.failed[0]?.error, strategy).toMatch(/^outcome could not be sent back: /);
    }
  });

  it('fails a computation past the metric timeout (transient), aborts its signal, and keeps the others — in every strategy', async () => {
    for (const strategy of STRATEGIES) {
      aborted.length = 0;
      const e = new MetricEngine({ strategy, maxWorkers: 2, metricTimeoutMs: 100 });
      engines.push(e);
      e.registerMetric(hangs, ref('hangs'));
      e.registerMetric(hangingBatch, ref('hangingBatch'));
      e.registerMetric(duration, ref('duration'));
      const started = performance.now();
      const run = await e.computeLoadedSession(sampleSession(), { metrics: { LLMCall: ['Hangs', 'Duration'], ToolCall: ['HangingBatch'] } });
      expect(performance.now() - started, strategy).toBeLessThan(5_000);
      expect(run.results.map((r) => `${r.name}:${r.measures}`), strategy).toEqual([
        'Hangs:s1-l1', 'Hangs:s1-l3', 'Duration:s1-l1', 'Duration:s1-l2', 'Duration:s1-l3',
      ]);
      expect(run.failed, strategy).toEqual([
        { name: 'Hangs', level: 'LLMCall', measures: 's1-l2', error: 'MetricTimeoutError: timed out after 100 ms', transient: true },
        { name: 'HangingBatch', level: 'ToolCall', measures: 's1-t1', error: 'MetricTimeoutError: timed out after 100 ms', transient: true },
        { name: 'HangingBatch', level: 'ToolCall', measures: 's1-t2', error: 'MetricTimeoutError: timed out after 100 ms', transient: true },
      ]);
      // The metric saw its own signal abort (in a worker, in the worker's copy of the fixture).
      if (strategy === 'asyncio' || strategy === 'hybrid') expect(aborted, strategy).toEqual(['s1-l2']);
    }
  });

  it('times only LLM-judged computations, each from its own start, and fails a synchronous overrun once it returns', async () => {
    for (const strategy of STRATEGIES) {
      const e = new MetricEngine({ strategy, maxWorkers: 2, metricTimeoutMs: 500 });
      engines.push(e);
      for (const [m, name] of [[slowDeterministic, 'slowDeterministic'], [busyJudged, 'busyJudged'], [limitedJudge, 'limitedJudge']] as const) {
        e.registerMetric(m, ref(name));
      }
      // 10 elements behind the metric's own limit of 2, 100 ms each: 500 ms in all, but none waits its turn on the clock.
      const run = await e.computeLoadedSession(sampleSession(), { metrics: { Session: ['SlowDeterministic'], LLMCall: ['LimitedJudge'], ToolCall: ['LimitedJudge'], AgentCall: ['LimitedJudge'], TaskCall: ['LimitedJudge'], MASCall: ['LimitedJudge'] } });
      expect([run.failed, run.results.length], strategy).toEqual([[], 10]);
      const strict = new MetricEngine({ strategy, maxWorkers: 2, metricTimeoutMs: 50 });
      engines.push(strict);
      strict.registerMetric(slowDeterministic, ref('slowDeterministic'));
      strict.registerMetric(busyJudged, ref('busyJudged'));
      const overrun = await strict.computeLoadedSession(sampleSession(), { metrics: { Session: ['SlowDeterministic', 'BusyJudged'] } });
      expect(overrun.results.map((r) => [r.name, r.result]), strategy).toEqual([['SlowDeterministic', 2]]); // 150 ms: not timed
      expect(overrun.failed, strategy).toEqual([
        { name: 'BusyJudged', level: 'Session', measures: 's1', error: 'MetricTimeoutError: timed out after 50 ms', transient: true },
      ]);
    }
  });

  it('computes a judged task in a worker maxWorkers at a time, with or without a timeout', async () => {
    for (const strategy of ['thread', 'process'] as const) {
      for (const metricTimeoutMs of [undefined, 5_000]) {
        const e = new MetricEngine({ strategy, maxWorkers: 2, ...(metricTimeoutMs ? { metricTimeoutMs } : {}) });
        engines.push(e);
        e.registerMetric(concurrencyProbe, ref('concurrencyProbe'));
        const run = await e.computeLoadedSession(sampleSession(), { metrics: { LLMCall: ['InFlight'], ToolCall: ['InFlight'] } });
        expect(Math.max(...run.results.map((r) => r.result)), `${strategy} ${metricTimeoutMs}`).toBe(2);
      }
    }
  });

  it('adds one listener to the run signal, whatever the number of timed computations, and aborts them through it', async () => {
    const e = new MetricEngine({ maxWorkers: 2, metricTimeoutMs: 1000 });
    engines.push(e);
    e.registerMetric(hangs, ref('hangs'));
    const run = new AbortController();
    const before = EventEmitter.getEventListeners(run.signal, 'abort').length;
    for (let i = 0; i < 3; i++) await e.computeLoadedSession({ ...sampleSession(), llmCalls: sampleSession().llmCalls.filter((c) => !c.id.endsWith('-l2')) }, { metrics: { LLMCall: ['Hangs'] }, signal: run.signal });
    expect(EventEmitter.getEventListeners(run.signal, 'abort').length - before).toBe(1);
    // Aborting the run reaches a computation in flight: the element that never answers fails with the run's reason.
    const started = performance.now();
    const aborting = e.computeLoadedSession(sampleSession(), { metrics: { LLMCall: ['Hangs'] }, signal: run.signal });
    setTimeout(() => run.abort(new Error('shutting down')), 50);
    await expect(aborting).rejects.toThrow('shutting down');
    expect(performance.now() - started).toBeLessThan(600); // at the abort, not at the 1,000 ms timeout
  });

  it('a worker that dies fails its tasks, and the pool recovers', async () => {
    for (const strategy of ['thread', 'process'] as const) {
      const e = engine(strategy);
      e.registerMetric(crash, ref('crash'));
      e.registerMetric(duration, ref('duration'));
      const run = await e.computeLoadedSession(sampleSession(), { metrics: { Session: ['Crash'] } });
      const expected = strategy === 'thread' ? 'worker thread exited with code 3' : 'worker process exited with code 3';
      expect(run.failed).toEqual([{ name: 'Crash', level: 'Session', measures: 's1', error: expected }]);
      const after = await e.computeLoadedSession(sampleSession(), { metrics: { Session: ['Duration'] } });
      expect(after.results.map((r) => r.result)).toEqual([100]);
    }
  });

  it('closing a busy engine fails the running and queued work, then the engine works again', async () => {
    // One worker, two sessions at once: one request runs, the other waits in the pool's queue.
    const e1 = new MetricEngine({ strategy: 'thread', maxWorkers: 1, sessionConcurrency: 2 });
    engines.push(e1);
    e1.registerMetric(slow, ref('slow'));
    const running = e1.computeLoadedSessions([sampleSession('a'), sampleSession('b')]);
    await new Promise((r) => setTimeout(r, 100));
    await e1.close();
    const runs = await running;
    expect(runs.map((r) => r.failed.map((f) => `${f.measures}: ${f.error}`))).toEqual([
      ['a: thread pool closed'],
      ['b: thread pool closed'],
    ]);
    const again = await e1.computeLoadedSession(sampleSession('c'));
    expect(again.results.map((r) => r.result)).toEqual([1]);
  });

  it('a module that cannot provide the metric fails its results with the reason', async () => {
    const e = engine('thread');
    e.registerMetric(duration, ref('nothingHere'));
    const run = await e.computeLoadedSession(sampleSession(), { metrics: { AgentCall: ['Duration'] } });
    expect(run.failed.map((f) => f.error)).toEqual([
      `module "${MODULE}" has no export "nothingHere"`,
      `module "${MODULE}" has no export "nothingHere"`,
    ]);
  });

  it('runs metrics without a portable ref on the main thread under the process strategy', async () => {
    const e = engine('process');
    e.registerMetric(metric('Local', ['LLMCall'], (c) => ({ value: c.usage.inputTokens })));
    const run = await e.computeLoadedSession(sampleSession());
    expect(run.results.map((r) => r.result)).toEqual([100, 200, 50]);
  });
});

describe('engineOptionsFromEnv', () => {
  it('reads MCE_METRIC_TIMEOUT_MS, and refuses a timeout that is not a whole number of milliseconds', () => {
    expect(engineOptionsFromEnv({ MCE_METRIC_TIMEOUT_MS: ' 30000 ' })).toEqual({ metricTimeoutMs: 30_000 });
    for (const bad of ['0', '1.5', '1e3', '-5', '2147483648', 'soon']) {
      expect(() => engineOptionsFromEnv({ MCE_METRIC_TIMEOUT_MS: bad }), bad).toThrow(EngineOptionError);
    }
    expect(() => new MetricEngine({ metricTimeoutMs: 0 })).toThrow(/metricTimeoutMs/);
    expect(new MetricTimeoutError(5).message).toBe('timed out after 5 ms');
  });

  it('reads MCE_ENGINE_STRATEGY and MCE_ENGINE_MAX_WORKERS', () => {
    expect(engineOptionsFromEnv({})).toEqual({});
    expect(engineOptionsFromEnv({ MCE_ENGINE_STRATEGY: 'Thread', MCE_ENGINE_MAX_WORKERS: '3' })).toEqual({
      strategy: 'thread',
      maxWorkers: 3,
    });
    expect(engineOptionsFromEnv({ MCE_ENGINE_STRATEGY: ' ', MCE_ENGINE_MAX_WORKERS: '' })).toEqual({});
  });

  it('rejects bad values with the variable name', () => {
    expect(() => engineOptionsFromEnv({ MCE_ENGINE_STRATEGY: 'fibers' })).toThrow(
      'MCE_ENGINE_STRATEGY must be one of asyncio, thread, process, hybrid (got "fibers")',
    );
    expect(() => engineOptionsFromEnv({ MCE_ENGINE_MAX_WORKERS: '0' })).toThrow(
      'MCE_ENGINE_MAX_WORKERS must be an integer from 1 to 1024 (got "0")',
    );
    expect(() => engineOptionsFromEnv({ MCE_ENGINE_MAX_WORKERS: '2.5' })).toThrow("MCE_ENGINE_MAX_WORKERS must be an integer from 1 to 1024");
    for (const bad of ['1e3', '0x10', '2000']) expect(() => engineOptionsFromEnv({ MCE_ENGINE_MAX_WORKERS: bad })).toThrow(`(got "${bad}")`);
    // The parts of the message, for callers that word it their own way (the client's EnvError).
    expect(() => engineOptionsFromEnv({ MCE_ENGINE_STRATEGY: 'fibers' })).toThrow(
      expect.objectContaining({ source: 'MCE_ENGINE_STRATEGY', expected: 'one of asyncio, thread, process, hybrid', value: 'fibers' }),
    );
    expect(() => engineOptionsFromEnv({ MCE_ENGINE_MAX_WORKERS: '0' })).toThrow(EngineOptionError);
  });

  it('configures the engine', () => {
    const e = new MetricEngine(engineOptionsFromEnv({ MCE_ENGINE_STRATEGY: 'process', MCE_ENGINE_MAX_WORKERS: '5' }));
    expect([e.strategyName, e.maxWorkers]).toEqual(['process', 5]);
    expect(new MetricEngine().strategyName).toBe('asyncio');
    expect(() => new MetricEngine({ maxWorkers: -1 })).toThrow('maxWorkers must be an integer from 1 to 1024 (got "-1")');
  });

  it('rejects an unknown strategy when the engine is made, not at its first compute', () => {
    expect(() => new MetricEngine({ strategy: 'fibers' as StrategyName })).toThrow(
      'strategy must be one of asyncio, thread, process, hybrid (got "fibers")',
    );
  });
});

// The fixture runs outside the test runner, so it uses the built package (`npm test` builds before testing).
const built = existsSync(fileURLToPath(new URL('../dist/index.js', import.meta.url)));
if (!built) console.warn('packages/core/dist is missing: build first (npx tsc -b packages/core); close test skipped');

describe.skipIf(!built)('closing an engine in a plain Node process', () => {
  it('waits for idle worker processes and threads to exit (the loop must not drain first)', async () => {
    const script = fileURLToPath(new URL('./fixtures/close-engine.mjs', import.meta.url));
    const output = await new Promise<string>((resolve, reject) =>
      // A clean environment: the test runner's own (NODE_OPTIONS, …) can keep the child's event loop alive.
      execFile(process.execPath, [script, MODULE], { timeout: 20_000, env: { PATH: process.env.PATH } }, (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      ),
    );
    expect(output.trim().split('\n')).toEqual(['thread 100', 'thread closed', 'process 100', 'process closed']);
  });
});
