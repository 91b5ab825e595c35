#!/usr/bin/env node
/**
 * One session, three answer-relevancy metrics side by side: mce's own (`mce:AnswerRelevancy`), DeepEval's and Ragas'
 * (issue 22). A scripted OpenAI-compatible server answers each library the way it asks (a rubric score, JSON for a
 * schema, a forced tool call, an embedding) and reports usage as characters / 4 of each request, so the token counts
 * follow the prompts each library really sends. Prints a Markdown table of score, calls and cost (gpt-4o-mini and
 * text-embedding-3-small at the committed price table's rates).
 *
 *   npm run build && node bench/judge/compare-answer-relevancy.mjs [session.json]
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MetricEngine, MetricRegistry } from '@mce/core';
import { Judge, PriceTable, createLLMJudgedMetrics, judgeConfigFromEnv, loadCommittedPrices, pricingFrom } from '@mce/provider-native';
import { deepevalMetrics } from '@mce/provider-deepeval';
import { ragasMetrics } from '@mce/provider-ragas';
import { startScriptedLLMServer } from '../../test-support/scripted-llm-server.mjs';

const file = process.argv[2] ?? fileURLToPath(new URL('../../examples/sessions/single-agent-tool.json', import.meta.url));
const session = JSON.parse(fs.readFileSync(file, 'utf8'));

const estimate = (value) => Math.ceil(JSON.stringify(value ?? '').length / 4);
function step(body) {
  // The user input and a generated question embed at a cosine of 0.95.
  if (body.input !== undefined) return { embedding: body.input === session.userInput ? [1, 0, 0] : [0.95, 0.3122, 0], usage: { prompt_tokens: estimate(body.input), total_tokens: estimate(body.input) } };
  const usage = (reply) => {
    const prompt = estimate(body.messages);
    const completion = estimate(reply);
    return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  };
  if (body.tool_choice?.function?.name === 'generate_question') {
    const args = { question: 'What is the weather in Lyon now?', noncommittal: 0 };
    return { toolCalls: [{ name: 'generate_question', arguments: args }], usage: usage(args) };
  }
  const keys = Object.keys(body.response_format?.json_schema?.schema?.properties ?? {}).sort().join(',');
  const json = {
    statements: { statements: ['It is 14 °C in Lyon.', 'It is cloudy in Lyon.'] },
    verdicts: { verdicts: [{ verdict: 'yes' }, { verdict: 'yes' }] },
    reason: { reason: 'Both statements answer the question about the current weather in Lyon.' },
  }[keys];
  if (json) return { text: JSON.stringify(json), usage: usage(json) };
  const text = 'The response gives the current temperature and sky in Lyon, which is what was asked.\nScore: 5';
  return { text, usage: usage(text) };
}

const server = await startScriptedLLMServer({ script: step });
const prices = new PriceTable(loadCommittedPrices, 'committed');
const judge = new Judge(
  judgeConfigFromEnv({ LLM_MODEL_NAME: 'gpt-4o-mini', OPENAI_API_KEY: 'bench', LLM_BASE_MODEL_URL_MCE: server.url, MCE_JUDGE_LOGPROBS: 'false' }),
  { pricing: pricingFrom(() => prices) },
);
const registry = new MetricRegistry();
registry.registerProvider({ name: 'mce', description: 'mce', version: '0', metrics: () => createLLMJudgedMetrics(judge) });
registry.registerProvider({ name: 'deepeval', description: 'deepeval', version: '0', metrics: () => deepevalMetrics(() => judge) });
registry.registerProvider({ name: 'ragas', description: 'ragas', version: '0', metrics: () => ragasMetrics(() => judge) });
const engine = new MetricEngine({}, registry);

const rows = [];
for (const [metric, options] of [['mce:AnswerRelevancy', {}], ['deepeval:AnswerRelevancy', {}], ['ragas:AnswerRelevancy', { embedding_model: 'text-embedding-3-small' }]]) {
  server.setScript(step);
  const run = await engine.computeLoadedSession(session, { metrics: { Session: [metric] }, metricOptions: { [metric]: options } });
  if (run.failed.length > 0) throw new Error(`${metric}: ${run.failed[0].error}`);
  const [r] = run.results;
  const chats = server.requests.filter((q) => q.path.endsWith('/chat/completions')).length;
  const embeddings = server.requests.length - chats;
  rows.push(`| \`${metric}\` | ${r.result.toFixed(3)} | ${chats}${embeddings ? ` + ${embeddings} embeddings` : ''} | ${r.evaluationPromptTokenCount} | ${r.evaluationCompletionTokenCount} | ${r.evaluationCost.toFixed(6)} |`);
}
console.log(`Session ${session.id} (${file.split('/').slice(-2).join('/')}), judge gpt-4o-mini\n`);
console.log('| metric | score | judge calls | prompt tokens | completion tokens | cost (USD) |');
console.log('|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
await server.close();
