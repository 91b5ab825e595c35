#!/usr/bin/env node
/**
 * Judge throughput benchmark (issue 5): N LLM-judged metric computations through the engine against a scripted
 * OpenAI-compatible server (own process) answering after a fixed latency, with the judge's process-wide concurrency
 * limit. Prints wall time, the ideal (N × latency / limit), ideal / wall (target ≥ 0.9), the engine's CPU time per
 * judge call (target < 1 ms), and the wall time of the same run replayed from the record/replay cache.
 *
 *   npm run build && node bench/judge/run.mjs [--computations 500] [--latency-ms 100] [--concurrency 16]
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MetricEngine } from '@mce/core';
import {
  Judge,
  MemoryCacheManager,
  PriceTable,
  createLLMJudgedMetrics,
  judgeConfigFromEnv,
  loadCommittedPrices,
  pricingFrom,
} from '@mce/provider-native';

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}
const COMPUTATIONS = option('computations', 500);
const LATENCY_MS = option('latency-ms', 100);
const CONCURRENCY = option('concurrency', 16);
const METRICS = ['AnswerRelevancy', 'Groundedness', 'TaskCompletion', 'GoalSuccessRate', 'ResponseCompleteness',
  'Consistency', 'ContextPreservation', 'InformationRetention', 'WorkflowCohesionIndex', 'ComponentConflictRate'];

/** A booking-like session: one agent, two LLM calls re-sending the history, one tool call. */
function session(i) {
  const user = { role: 'user', content: `Book a train from Paris to Lyon on day ${i} at 9am, window seat please.` };
  const system = { role: 'system', content: 'You book train tickets for the user.' };
  const ask = { role: 'assistant', content: '', toolCalls: [{ id: `c${i}`, name: 'search_trains', arguments: { from: 'Paris', to: 'Lyon', day: i } }] };
  const result = { trains: [{ id: `TGV ${6600 + i}`, departs: '09:04', seat: 'window' }] };
  const tool = { role: 'tool', content: JSON.stringify(result), toolCallId: `c${i}`, name: 'search_trains' };
  const answer = { role: 'assistant', content: `Booked TGV ${6600 + i} at 09:04 with a window seat.` };
  const usage = { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 120 };
  const llm = (id, start, input, output) => ({ kind: 'LLMCall', id, name: 'chat', parentId: 'a', agentCallId: 'a', startTime: start,
    endTime: start + 5, status: 'ok', operation: 'chat', usage, inputMessages: input, outputMessages: output,
    finishReasons: ['stop'], toolDefinitions: [] });
  return {
    kind: 'Session', id: `bench-${i}`, startTime: 0, endTime: 50, traceIds: [`t${i}`], userInput: user.content,
    finalResponse: answer.content, masCalls: [], taskCalls: [], mcpServers: [],
    agentCalls: [{ kind: 'AgentCall', id: 'a', name: 'invoke_agent booker', agentName: 'booker', startTime: 0, endTime: 50, status: 'ok' }],
    llmCalls: [llm('l1', 1, [system, user], [ask]), llm('l2', 20, [system, user, ask, tool], [answer])],
    toolCalls: [{ kind: 'ToolCall', id: 'tc', name: 'execute_tool search_trains', parentId: 'a', agentCallId: 'a', startTime: 10,
      endTime: 15, status: 'ok', toolName: 'search_trains', toolCallId: `c${i}`, arguments: { from: 'Paris', to: 'Lyon', day: i }, result }],
  };
}

const child = fork(fileURLToPath(new URL('./scripted-server-process.mjs', import.meta.url)), [String(LATENCY_MS)], { stdio: 'inherit' });
const nextMessage = () => new Promise((resolve) => child.once('message', resolve));
const { url } = await nextMessage();
const stats = async () => {
  child.send('stats');
  return nextMessage();
};

const prices = new PriceTable(loadCommittedPrices, 'committed'); // the committed copy: no network in a benchmark
const judge = new Judge(
  judgeConfigFromEnv({ LLM_MODEL_NAME: 'gpt-4o', OPENAI_API_KEY: 'bench', LLM_BASE_MODEL_URL_MCE: url, MCE_JUDGE_CONCURRENCY: String(CONCURRENCY) }),
  { pricing: pricingFrom(() => prices) },
);
const perSession = METRICS.length;
const sessions = Array.from({ length: Math.ceil(COMPUTATIONS / perSession) }, (_, i) => session(i));
const selection = (i) => ({ Session: METRICS.slice(0, Math.min(perSession, COMPUTATIONS - i * perSession)) });

let startedAt = 0;
async function run(cache, count = sessions.length) {
  const engine = new MetricEngine({ strategy: 'asyncio', maxWorkers: CONCURRENCY * 4, sessionConcurrency: sessions.length });
  for (const metric of createLLMJudgedMetrics(judge)) engine.registerMetric(metric);
  if (cache) engine.setCacheManager(cache);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  startedAt = Date.now();
  const out = await Promise.all(sessions.slice(0, count).map((s, i) => engine.computeLoadedSession(s, { metrics: selection(i) })));
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await engine.close();
  const results = out.flatMap((c) => c.results);
  const failed = out.flatMap((c) => c.failed);
  if (failed.length > 0) throw new Error(`${failed.length} failed computations, first: ${failed[0].error}`);
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000, results };
}

// Warm-up (HTTP keep-alive, JIT, tokenizer tables): the first four sessions, not measured.
await run(undefined, 4);
await stats();

const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mce-bench-judge-'));
let sqlite;
try {
  const { SqliteCacheManager } = await import('@mce/client');
  sqlite = new SqliteCacheManager(path.join(cacheDir, 'cache.db'));
} catch {
  sqlite = undefined; // client not built: replay from memory only
}
// The timed run records into memory only (no lookups, no SQLite writes charged to it); the replays read copies.
const recorder = new MemoryCacheManager({ read: false });
const live = await run(recorder);
const liveStartedAt = startedAt;
const server = await stats();

// The same judge calls (same prompts) without the engine: what the judge client and HTTP cost on their own.
const judgeOnly = await (async () => {
  const byName = new Map(createLLMJudgedMetrics(judge).map((m) => [m.metadata.name, m]));
  const lookup = { get: () => undefined, all: () => [] };
  const calls = sessions.flatMap((s, i) =>
    selection(i).Session.map((name) => {
      const metric = byName.get(name);
      return { rubric: metric.rubric, prompt: metric.promptFor(s, { session: s, level: 'Session', options: {}, results: lookup }) };
    }),
  );
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(calls.map((c) => judge.score(c)));
  const cpu = process.cpuUsage(cpu0);
  return { wallMs: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000, calls: calls.length };
})();
await stats();
const memory = new MemoryCacheManager();
for (const [key, entry] of recorder.entries) {
  await memory.set(key, entry);
  await sqlite?.set(key, entry);
}
const replayMemory = await run(memory);
const replaySqlite = sqlite ? await run(sqlite) : undefined;
const afterReplay = await stats();

const ideal = (COMPUTATIONS * LATENCY_MS) / CONCURRENCY;
const cost = live.results.reduce((sum, r) => sum + r.evaluationCost, 0);
const f = (n, d = 1) => n.toFixed(d);
console.log(`judge benchmark: ${live.results.length} judged computations (${sessions.length} sessions × ≤${perSession} metrics), latency ${LATENCY_MS} ms, concurrency ${CONCURRENCY}`);
console.log(`  wall time                 ${f(live.wallMs)} ms`);
console.log(`  ideal (N × latency / C)   ${f(ideal)} ms`);
console.log(`  ideal / wall              ${f(ideal / live.wallMs, 3)}   (target ≥ 0.9)`);
console.log(`  first call after          ${server.firstAt - liveStartedAt} ms; first to last call start ${server.span} ms`);
console.log(`  judge calls seen          ${server.requests}, max in flight ${server.maxConcurrent}`);
const totalPerCall = live.cpuMs / server.requests;
const clientPerCall = judgeOnly.cpuMs / judgeOnly.calls;
console.log(`  CPU per judge call        ${f(totalPerCall, 3)} ms   (main process: engine + judge client + HTTP; the server runs in its own process)`);
console.log(`    judge client + HTTP     ${f(clientPerCall, 3)} ms   (the same ${judgeOnly.calls} calls without the engine: wall ${f(judgeOnly.wallMs)} ms)`);
console.log(`    engine's share          ${f(totalPerCall - clientPerCall, 3)} ms   (target < 1 ms)`);
console.log(`  evaluation cost           $${f(cost, 4)} (gpt-4o list price)`);
console.log(`  replay from memory cache  ${f(replayMemory.wallMs)} ms, ${afterReplay.requests} judge calls`);
if (replaySqlite) console.log(`  replay from SQLite cache  ${f(replaySqlite.wallMs)} ms`);
const replayedAll = [replayMemory, replaySqlite].filter(Boolean).every((r) => r.results.every((x) => x.details?.replayed === true));
console.log(`  every replayed result marked replayed: ${replayedAll}`);
sqlite?.close();
fs.rmSync(cacheDir, { recursive: true, force: true });
child.send('close');
