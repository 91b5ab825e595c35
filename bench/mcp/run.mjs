#!/usr/bin/env node
/**
 * MCP metrics benchmark on the labelled set (packages/provider-native/test/data/mcp-labelled/): the local System One
 * model's agreement with the labels (good/bad per question), how far MCPUse and MCPTaskCompletion (system_one mode) put each failure class below
 * its good twins, the pairwise ranking accuracy, and the throughput of system_one computations.
 *   npm run build && node bench/mcp/run.mjs [--seconds 3]
 * Two held-out splits, neither used for calibration: `fresh` (fresh.jsonl, other servers, written blind to the model and
 * never used while developing it: the measure of the targets) and `heldout` (looked at while the features were chosen,
 * so shown as "seen in development").
 * Targets (fresh held-out): gap ≥ 0.3 per failure class for both metrics, pairwise ≥ 95%, agreement ≥ 90%, ≥ 5,000
 * computations/s.
 */
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  FRESH_SET_FILES,
  LABELLED_SET_FILES,
  LocalSystemOne,
  SYSTEM_ONE_QUESTIONS,
  agreement,
  createMCPTaskCompletion,
  createMCPUse,
  createMultiTurnMCPUse,
  parseLabelledSet,
  readLabelledSet,
  twinReport,
} from '@mce/provider-native';
import { machineLine } from '../lib/machine.mjs';

const secondsArg = process.argv.indexOf('--seconds');
const SECONDS = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 3;
console.log(`MCP metrics benchmark\n${machineLine()}\n`);
const setDir = fileURLToPath(new URL('../../packages/provider-native/test/data/mcp-labelled/', import.meta.url));
// The fresh split is read on purpose here: it is the measure of the targets (written blind to the model, never used
// while developing it); the older held-out split has been looked at in development, so it is shown as such.
const items = parseLabelledSet(readLabelledSet(setDir, [...LABELLED_SET_FILES, ...FRESH_SET_FILES]));
const turns = items.flatMap((i) => i.turns);
const fresh = items.filter((i) => i.split === 'fresh');
const heldout = items.filter((i) => i.split === 'heldout');
const training = items.filter((i) => i.split === 'train' && !i.category.startsWith('legacy:'));
const pct = (x) => `${(100 * x).toFixed(1)}%`;
const r3 = (x) => x.toFixed(3);

// ---------------------------------------------------------------- agreement
const model = new LocalSystemOne();
const rows = [
  ['fresh held-out', turns.filter((t) => t.split === 'fresh')],
  ['held-out, seen in development', turns.filter((t) => t.split === 'heldout')],
  ['training (fitted on)', turns.filter((t) => t.split === 'train')],
];
console.log(`labelled set: ${items.length} interactions, ${turns.length} turns (${fresh.length} fresh held-out, ${heldout.length} held-out seen in development)`);
console.log('\nlocal System One agreement with the labels (value ≥ 0.5 against level ≥ 2):');
console.log(`${'split'.padEnd(38)}${SYSTEM_ONE_QUESTIONS.map((q) => q.padStart(12)).join('')}${'overall'.padStart(10)}`);
for (const [name, subset] of rows) {
  const a = await agreement(model, subset);
  const cells = SYSTEM_ONE_QUESTIONS.map((q) => `${pct(a.perQuestion[q].accuracy)} `.padStart(12));
  console.log(`${`${name} (${subset.length})`.padEnd(38)}${cells.join('')}${pct(a.overall).padStart(10)}`);
}

// ---------------------------------------------------------------- sessions from the labelled set
const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 0 };
function toSession(item, n) {
  const llmCalls = [];
  const toolCalls = [];
  const history = [{ role: 'system', content: 'You are a helpful assistant with MCP tools.' }];
  let t = 0;
  item.conversation.turns.forEach((turn, k) => {
    history.push({ role: 'user', content: turn.request });
    llmCalls.push({ kind: 'LLMCall', id: `l${k}a`, name: 'chat', startTime: t, endTime: t + 1, status: 'ok', operation: 'chat', usage,
      inputMessages: [...history], outputMessages: [{ role: 'assistant', content: '', toolCalls: turn.calls.map((c) => ({ name: c.name })) }], finishReasons: ['tool_calls'], toolDefinitions: [] });
    turn.calls.forEach((c, j) => {
      t += 2;
      toolCalls.push({ kind: 'ToolCall', id: `c${k}-${j}`, name: `tools/call ${c.name}`, startTime: t, endTime: t + 1,
        status: c.error ? 'error' : 'ok', ...(c.error ? { error: { message: String(c.error) } } : {}), toolName: c.name,
        arguments: c.arguments, result: c.result, mcp: { server: c.server, kind: c.kind, ...(c.uri ? { uri: c.uri } : {}) } });
    });
    t += 2;
    llmCalls.push({ kind: 'LLMCall', id: `l${k}b`, name: 'chat', startTime: t, endTime: t + 1, status: 'ok', operation: 'chat', usage,
      inputMessages: [...history], outputMessages: [{ role: 'assistant', content: turn.output }], finishReasons: ['stop'], toolDefinitions: [] });
    history.push({ role: 'assistant', content: turn.output });
    t += 10;
  });
  const turns = item.conversation.turns;
  return { kind: 'Session', id: `bench-${n}`, startTime: 0, endTime: t, traceIds: [], userInput: turns[0].request,
    finalResponse: turns[turns.length - 1].output, masCalls: [], agentCalls: [], taskCalls: [], llmCalls, toolCalls,
    mcpServers: item.conversation.servers };
}
const sessions = items.map(toSession);
const lookup = { get: () => undefined, all: () => [] };
const options = { eval_mode: 'system_one' };
const deps = { env: {}, persistedEvalMode: () => undefined };

/** Each item's system_one value for a metric, computed on its session. */
async function scores(metric, subset) {
  const out = new Map();
  for (const item of subset) {
    const session = sessions[items.indexOf(item)];
    out.set(item.id, (await metric.compute(session, { session, level: 'Session', options, results: lookup })).value);
  }
  return out;
}
const useMetric = createMCPUse(deps);
const taskMetric = createMCPTaskCompletion(deps);
for (const [name, subset] of [['fresh held-out', fresh], ['held-out, seen in development', heldout], ['training (fitted on)', training]]) {
  const use = twinReport(subset, await scores(useMetric, subset));
  const task = twinReport(subset, await scores(taskMetric, subset));
  console.log(`\n${name}: mean system_one score of each failure class against its good twins (gap = good − degraded; target ≥ 0.3)`);
  console.log(`${'class'.padEnd(24)}${'pairs'.padStart(6)}  ${'MCPUse good / bad / gap'.padEnd(28)}${'MCPTaskCompletion good / bad / gap'}`);
  for (const cls of Object.keys(use.perClass)) {
    const u = use.perClass[cls];
    const t = task.perClass[cls];
    const cell = (g) => `${r3(g.goodMean)} / ${r3(g.degradedMean)} / ${r3(g.gap)}${g.gap >= 0.3 ? '' : ' <'}`;
    console.log(`${cls.padEnd(24)}${String(u.pairs).padStart(6)}  ${cell(u).padEnd(28)}${cell(t)}`);
  }
  console.log(`pairwise ranking (good twin strictly above): MCPUse ${pct(use.pairwiseAccuracy)}, MCPTaskCompletion ${pct(task.pairwiseAccuracy)} of ${use.pairs} pairs (target ≥ 95%)`);
}

async function throughput(metric) {
  const ctxs = sessions.map((session) => ({ session, level: 'Session', options, results: lookup }));
  for (let i = 0; i < 200; i++) await metric.compute(sessions[i % sessions.length], ctxs[i % sessions.length]); // warm-up
  let done = 0;
  const start = performance.now();
  const cpu = process.cpuUsage();
  const end = start + SECONDS * 1000;
  while (performance.now() < end) {
    for (let i = 0; i < sessions.length; i++) await metric.compute(sessions[i], ctxs[i]);
    done += sessions.length;
  }
  const used = process.cpuUsage(cpu);
  // Per wall-clock second, and per second of this process's CPU time (steadier on a shared, loaded machine).
  return { wall: done / ((performance.now() - start) / 1000), cpu: done / ((used.user + used.system) / 1e6) };
}

/**
 * Each computation on a session object never seen before: no per-session or per-inventory cache can help. The JIT is
 * warmed first, on copies of their own, so the first metric's figure does not include compiling it.
 */
async function coldThroughput(metric, copies) {
  const clones = (count) => Array.from({ length: count }, (_, i) => structuredClone(sessions[i % sessions.length]));
  for (const session of clones(200)) await metric.compute(session, { session, level: 'Session', options, results: lookup }); // warm-up
  const fresh = clones(copies);
  const ctxs = fresh.map((session) => ({ session, level: 'Session', options, results: lookup }));
  const start = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < fresh.length; i++) await metric.compute(fresh[i], ctxs[i]);
  const used = process.cpuUsage(cpu);
  return { wall: fresh.length / ((performance.now() - start) / 1000), cpu: fresh.length / ((used.user + used.system) / 1e6) };
}

const n = (x) => Math.round(x).toLocaleString('en-US').padStart(9);
const line = (name, { wall, cpu }) =>
  `  ${name.padEnd(18)} ${n(wall)} computations/s (${(1e6 / wall).toFixed(1)} µs each; ${(wall / 5000).toFixed(1)}× the 5,000/s target)` +
  `  | ${n(cpu)} per CPU-second (${(cpu / 5000).toFixed(1)}×)`;
const metrics = [createMCPUse(deps), createMultiTurnMCPUse(deps), createMCPTaskCompletion(deps)];
const COPIES = Math.max(2000, Math.round(5000 * SECONDS));
console.log(`\nsystem_one metric computations, each on a new session object (${COPIES} copies of the ${sessions.length} sessions, one core):`);
for (const metric of metrics) console.log(line(metric.metadata.name, await coldThroughput(metric, COPIES)));
console.log(`\nthe same ${sessions.length} sessions computed again and again (${SECONDS}s each; per-session caches warm):`);
for (const metric of metrics) console.log(line(metric.metadata.name, await throughput(metric)));

// ---------------------------------------------------------------- per question
const interactions = turns.map((t) => t.interaction);
let answered = 0;
const qStart = performance.now();
while (performance.now() - qStart < 1000) {
  for (const interaction of interactions) model.answerSync({ interaction, questions: SYSTEM_ONE_QUESTIONS });
  answered += interactions.length * SYSTEM_ONE_QUESTIONS.length;
}
const perQuestionUs = ((performance.now() - qStart) * 1000) / answered;
console.log(`\nlocal model: ${perQuestionUs.toFixed(1)} µs per question (three questions per request)`);
