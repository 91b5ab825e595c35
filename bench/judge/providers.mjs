#!/usr/bin/env node
/**
 * Library-backed provider metrics (issue 22) at the judge's concurrency: N computations of each of ragas, deepeval
 * and opik metrics through the engine against a scripted server (own process) answering after a fixed latency.
 * Every HTTP call the libraries make waits for mce's judge limiter, so the ideal wall time is
 * calls × latency / concurrency; ideal / wall ≥ 0.9 says the libraries do not serialise their calls.
 *
 *   npm run build && node bench/judge/providers.mjs [--computations 480] [--latency-ms 100] [--concurrency 16]
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { MetricEngine, MetricRegistry } from '@mce/core';
import { Judge, PriceTable, judgeConfigFromEnv, loadCommittedPrices, pricingFrom } from '@mce/provider-native';
import { deepevalMetrics } from '@mce/provider-deepeval';
import { opikMetrics } from '@mce/provider-opik';
import { ragasMetrics } from '@mce/provider-ragas';
import { machineLine } from '../lib/machine.mjs';

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}
const COMPUTATIONS = option('computations', 480);
const LATENCY_MS = option('latency-ms', 100);
const CONCURRENCY = option('concurrency', 16);
// Metrics of each provider; their calls per computation: 1 or 2 (ragas), 3 in sequence (deepeval), 1 (opik; its
// G-Eval judge asks for its evaluation steps once per model, in the warm-up).
const CASES = [
  ['ragas:ContextPrecision', 1],
  ['ragas:Faithfulness', 2],
  ['deepeval:AnswerRelevancy', 3],
  ['opik:Hallucination', 1],
  ['opik:AgentTaskCompletionJudge', 1],
];

function session(i) {
  const question = `Which train goes from Paris to Lyon on day ${i} at 9am?`;
  const answer = `TGV ${6600 + i} leaves Paris at 09:04 and arrives in Lyon at 11:00.`;
  const usage = { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 120 };
  return {
    kind: 'Session', id: `bench-${i}`, startTime: 0, endTime: 50, traceIds: [`t${i}`], userInput: question, finalResponse: answer,
    masCalls: [], taskCalls: [], mcpServers: [], attributes: { reference: `TGV ${6600 + i} at 09:04.` },
    agentCalls: [{ kind: 'AgentCall', id: 'a', name: 'invoke_agent booker', agentName: 'booker', startTime: 0, endTime: 50, status: 'ok' }],
    llmCalls: [{ kind: 'LLMCall', id: 'l1', name: 'chat', parentId: 'a', agentCallId: 'a', startTime: 20, endTime: 25, status: 'ok',
      operation: 'chat', usage, inputMessages: [{ role: 'user', content: question }], outputMessages: [{ role: 'assistant', content: answer }],
      finishReasons: ['stop'], toolDefinitions: [] }],
    toolCalls: [{ kind: 'ToolCall', id: 'tc', name: 'execute_tool search_trains', parentId: 'a', agentCallId: 'a', startTime: 10,
      endTime: 15, status: 'ok', toolName: 'search_trains', arguments: { from: 'Paris', to: 'Lyon', day: i },
      result: { trains: [{ id: `TGV ${6600 + i}`, departs: '09:04', arrives: '11:00' }] } }],
  };
}

const child = fork(fileURLToPath(new URL('./scripted-library-server.mjs', import.meta.url)), [String(LATENCY_MS)], { stdio: 'inherit' });
const nextMessage = () => new Promise((resolve) => child.once('message', resolve));
const { url } = await nextMessage();
const stats = async () => {
  child.send('stats');
  return nextMessage();
};

const prices = new PriceTable(loadCommittedPrices, 'committed');
const judge = new Judge(
  judgeConfigFromEnv({ LLM_MODEL_NAME: 'gpt-4o', OPENAI_API_KEY: 'bench', LLM_BASE_MODEL_URL_MCE: url, MCE_JUDGE_CONCURRENCY: String(CONCURRENCY) }),
  { pricing: pricingFrom(() => prices) },
);
const registry = new MetricRegistry();
for (const [name, metrics] of [['ragas', ragasMetrics], ['deepeval', deepevalMetrics], ['opik', opikMetrics]]) {
  registry.registerProvider({ name, description: name, version: '0', metrics: () => metrics(() => judge) });
}
const sessions = Array.from({ length: COMPUTATIONS }, (_, i) => session(i));

async function run(metric, count = sessions.length) {
  const engine = new MetricEngine({ strategy: 'asyncio', maxWorkers: CONCURRENCY * 4, sessionConcurrency: count }, registry);
  const t0 = performance.now();
  const out = await Promise.all(sessions.slice(0, count).map((s) => engine.computeLoadedSession(s, { metrics: { Session: [metric] } })));
  const wallMs = performance.now() - t0;
  await engine.close();
  const failed = out.flatMap((c) => c.failed);
  if (failed.length > 0) throw new Error(`${metric}: ${failed.length} failed, first: ${failed[0].error}`);
  return { wallMs, results: out.flatMap((c) => c.results) };
}

const f = (n, d = 1) => n.toFixed(d);
console.log(machineLine());
console.log(`library providers: ${COMPUTATIONS} computations per metric, latency ${LATENCY_MS} ms, judge concurrency ${CONCURRENCY}`);
console.log('  metric                          calls  max in flight  wall ms   ideal ms  ideal/wall  tokens/comp  cost/comp $');
for (const [metric, callsEach] of CASES) {
  await run(metric, 4); // warm-up: module loading, keep-alive, JIT
  await stats();
  const live = await run(metric);
  const server = await stats();
  const ideal = (server.requests * LATENCY_MS) / CONCURRENCY;
  const tokens = live.results.reduce((s, r) => s + r.evaluationTotalTokenCount, 0) / live.results.length;
  const cost = live.results.reduce((s, r) => s + r.evaluationCost, 0) / live.results.length;
  if (server.requests !== COMPUTATIONS * callsEach) console.log(`  (expected ${COMPUTATIONS * callsEach} calls for ${metric})`);
  console.log(`  ${metric.padEnd(30)}  ${String(server.requests).padStart(5)}  ${String(server.maxConcurrent).padStart(13)}  ${f(live.wallMs).padStart(7)}  ${f(ideal).padStart(8)}  ${f(ideal / live.wallMs, 3).padStart(10)}  ${f(tokens, 0).padStart(11)}  ${f(cost, 6).padStart(11)}`);
}
child.send('close');
