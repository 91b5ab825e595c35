import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Metric, type MetricValue, type OntologyLevel, type Session } from '@mce/core';
import { usageOfError } from '@mce/provider-native';
import { deepevalMetrics, deepevalProvider, telemetryDisabled } from '@mce/provider-deepeval';
import { startScriptedLLMServer, type RecordedRequest, type ScriptedLLMServer, type ScriptedStep } from '../../../test-support/scripted-llm-server.mjs';
import { judgeOn } from '../../../test-support/judge-env.js';
import { ANSWER, QUESTION, REFERENCE, RETRIEVED, ragSession, metricContext, valueAt, failureAt } from '../../../test-support/library-session.js';

const MODEL = 'gpt-4o-mini';
// The test judge's prices: 1 µ$ per prompt token, 2 µ$ per completion token.
/** The evaluation fields of `n` scripted replies (100 prompt + 20 completion tokens each). */
const usageOf = (n: number) => ({ model: MODEL, promptTokens: 100 * n, completionTokens: 20 * n, totalTokens: 120 * n, costUsd: expect.closeTo(n * (100e-6 + 40e-6), 12) });

let server: ScriptedLLMServer;
let metrics: Map<string, Metric>;
beforeAll(async () => {
  server = await startScriptedLLMServer();
  const judge = judgeOn(server.url, MODEL, { MCE_JUDGE_MAX_RETRIES: '0' });
  metrics = new Map(deepevalMetrics(() => judge).map((m) => [m.metadata.name, m]));
});
afterAll(() => server.close());
beforeEach(() => server.setScript([]));

/** The library asks for JSON of a schema: replies by the schema's property names (a list: one per call, in order). */
function script(replies: Record<string, unknown>): void {
  const seen = new Map<string, number>();
  server.setScript((body): ScriptedStep => {
    const schema = (body.response_format as { json_schema?: { schema?: { properties?: object } } } | undefined)?.json_schema?.schema;
    const keys = Object.keys(schema?.properties ?? {}).sort().join(',');
    const reply = replies[keys];
    if (reply === undefined) return { status: 400, error: { message: `unscripted schema ${keys}` } };
    const i = seen.get(keys) ?? 0;
    seen.set(keys, i + 1);
    return { text: JSON.stringify(Array.isArray(reply) ? reply[Math.min(i, reply.length - 1)] : reply) };
  });
}

const ctx = metricContext;
const valueOf = (name: string, options: Record<string, unknown> = {}, session = ragSession(), level: OntologyLevel = 'Session'): Promise<MetricValue> =>
  valueAt(metrics.get(name)!, session, level, options);
const failureOf = (name: string, options: Record<string, unknown> = {}, session = ragSession()): Promise<Error> =>
  failureAt(metrics.get(name)!, session, 'Session', options);

const prompts = () => server.requests.map((r: RecordedRequest) => r.body.messages?.[0]?.content ?? '');
const REASON = { reason: { reason: 'because' } };

function mcpSession(): Session {
  const s = ragSession('mcp-1');
  s.mcpServers = [{ name: 'docs', transport: 'stdio', tools: [{ name: 'search_docs', description: 'Searches the docs' }], resources: [], prompts: [] }];
  s.toolCalls[0]!.mcp = { server: 'docs', kind: 'tool', method: 'tools/call' };
  return s;
}

describe('deepeval provider', () => {
  it('names every metric deepeval:<Name> with threshold and strict_mode options', () => {
    expect(deepevalProvider.name).toBe('deepeval');
    expect([...metrics.keys()]).toEqual([
      'AnswerRelevancy', 'Faithfulness', 'ContextualPrecision', 'ContextualRecall', 'ContextualRelevancy', 'Hallucination',
      'Bias', 'Toxicity', 'TaskCompletion', 'ToolCorrectness', 'ArgumentCorrectness', 'MCPUse',
    ]);
    for (const m of metrics.values()) {
      expect(m.metadata.provider).toBe('deepeval');
      expect(m.metadata.options).toEqual(expect.arrayContaining(['model', 'threshold', 'strict_mode', 'include_reason']));
    }
  });

  it('AnswerRelevancy: statements of the response, verdicts against the input, a reason; share relevant', async () => {
    script({ statements: { statements: ['Completed in 1889.', 'It is in Paris.'] }, verdicts: { verdicts: [{ verdict: 'yes' }, { verdict: 'no', reason: 'off topic' }] }, ...REASON });
    const result = await valueOf('AnswerRelevancy');
    expect(result.value).toBe(0.5);
    expect(result.reasoning).toBe('because');
    expect(prompts()[0]).toContain(`Text:\n${ANSWER}`);
    expect(prompts()[1]).toContain(QUESTION);
    expect(server.requests[0]!.body).toMatchObject({ model: MODEL, temperature: 0, response_format: { type: 'json_schema' } });
    expect(result.evaluation).toEqual(usageOf(3));
    expect(result.details).toMatchObject({ threshold: 0.5, success: true, strictMode: false, judgeCalls: 3, library: 'deepeval@0.1.32' });
  });

  it('AnswerRelevancy at the LLM-call level reads the call\'s messages', async () => {
    script({ statements: { statements: ['a'] }, verdicts: { verdicts: [{ verdict: 'yes' }] }, ...REASON });
    expect((await valueOf('AnswerRelevancy', {}, ragSession(), 'LLMCall')).value).toBe(1);
    expect(prompts()[1]).toContain(QUESTION);
  });

  it('strict_mode and threshold as the library defines them: strict is all or nothing', async () => {
    script({ statements: { statements: ['a', 'b'] }, verdicts: { verdicts: [{ verdict: 'yes' }, { verdict: 'no', reason: 'r' }] }, ...REASON });
    const strict = await valueOf('AnswerRelevancy', { strict_mode: true });
    expect(strict.value).toBe(0);
    expect(strict.details).toMatchObject({ threshold: 1, success: false, strictMode: true });
    const high = await valueOf('AnswerRelevancy', { threshold: 0.8, include_reason: false });
    expect(high.value).toBe(0.5);
    expect(high.details).toMatchObject({ threshold: 0.8, success: false });
    expect(server.requests).toHaveLength(3 + 2); // the second without its reason call
  });

  it('Faithfulness: truths of the tool results, claims of the response, verdicts; idk penalised on request', async () => {
    const replies = {
      truths: { truths: ['The tower was completed in 1889.'] },
      claims: { claims: ['Completed in 1889.', 'It is in Paris.', 'It is red.'] },
      verdicts: { verdicts: [{ verdict: 'yes' }, { verdict: 'idk', reason: 'r' }, { verdict: 'no', reason: 'r' }] },
      ...REASON,
    };
    script(replies);
    const result = await valueOf('Faithfulness');
    expect(result.value).toBeCloseTo(2 / 3, 12);
    expect(prompts().some((p) => p.includes(`search_docs: ${RETRIEVED}`))).toBe(true);
    expect(prompts().some((p) => p.includes(ANSWER))).toBe(true);
    expect(result.evaluation).toEqual(usageOf(4));
    script(replies);
    expect((await valueOf('Faithfulness', { penalize_ambiguous_claims: true })).value).toBeCloseTo(1 / 3, 12);
  });

  it('ContextualPrecision: a verdict per retrieved context against the reference answer', async () => {
    script({ verdicts: { verdicts: [{ verdict: 'yes', reason: 'useful' }] }, ...REASON });
    const result = await valueOf('ContextualPrecision');
    expect(result.value).toBe(1);
    expect(prompts()[0]).toContain(REFERENCE);
    expect(prompts()[0]).toContain(RETRIEVED);
    expect(result.evaluation).toEqual(usageOf(2));
  });

  it('ContextualRecall: share of reference sentences attributable to the context', async () => {
    script({ verdicts: { verdicts: [{ verdict: 'yes', reason: 'r' }, { verdict: 'no', reason: 'r' }] }, ...REASON });
    const result = await valueOf('ContextualRecall', { reference: 'Completed in 1889. Designed by Eiffel.' });
    expect(result.value).toBe(0.5);
    expect(prompts()[0]).toContain('Completed in 1889. Designed by Eiffel.');
  });

  it('ContextualRelevancy: statements of each context judged relevant to the input', async () => {
    script({ verdicts: { verdicts: [{ statement: 's1', verdict: 'yes' }, { statement: 's2', verdict: 'no', reason: 'r' }] }, ...REASON });
    const result = await valueOf('ContextualRelevancy');
    expect(result.value).toBe(0.5);
    expect(prompts()[0]).toContain(QUESTION);
  });

  it('Hallucination: share of contexts contradicted (lower is better)', async () => {
    script({ verdicts: { verdicts: [{ verdict: 'no', reason: 'contradicts' }] }, ...REASON });
    const result = await valueOf('Hallucination');
    expect(result.value).toBe(1);
    expect(result.details).toMatchObject({ lowerIsBetter: true, success: false });
    expect(prompts()[0]).toContain(RETRIEVED);
  });

  it('Bias and Toxicity: opinions of the response, share judged biased / toxic', async () => {
    const replies = { opinions: { opinions: ['o1', 'o2'] }, verdicts: { verdicts: [{ verdict: 'yes', reason: 'r' }, { verdict: 'no' }] }, ...REASON };
    script(replies);
    const bias = await valueOf('Bias');
    expect(bias.value).toBe(0.5);
    expect(prompts()[0]).toContain(ANSWER);
    expect(bias.evaluation).toEqual(usageOf(3));
    script({ ...replies, verdicts: { verdicts: [{ verdict: 'no' }, { verdict: 'no' }] } });
    expect((await valueOf('Toxicity')).value).toBe(0);
  });

  it('TaskCompletion: task and outcome extracted (tools called included), then a verdict', async () => {
    script({ 'outcome,task': { task: 'Answer a date', outcome: 'Gave 1889' }, 'reason,verdict': { verdict: 0.8, reason: 'done' } });
    const result = await valueOf('TaskCompletion');
    expect(result.value).toBe(0.8);
    expect(result.reasoning).toBe('done');
    expect(prompts()[0]).toContain('search_docs');
    expect(prompts()[1]).toContain('Answer a date');
    expect(result.evaluation).toEqual(usageOf(2));
  });

  it('ToolCorrectness: tools called against expected_tools; no tools offered means no judge call', async () => {
    const result = await valueOf('ToolCorrectness', { expected_tools: ['search_docs'] });
    expect(result.value).toBe(1);
    expect(server.requests).toHaveLength(0);
    expect(result.evaluation).toMatchObject({ model: MODEL, totalTokens: 0, costUsd: 0 });
    expect((await valueOf('ToolCorrectness', { expected_tools: ['search_web'] })).value).toBe(0);
  });

  it('ToolCorrectness: the tools offered to the models make an LLM tool-selection score (the minimum wins)', async () => {
    const s = ragSession();
    s.llmCalls[0]!.toolDefinitions = [{ name: 'search_docs', description: 'Searches the docs' }, { name: 'search_web' }];
    script({ 'reason,score': { score: 0.5, reason: 'could have searched the web' } });
    const result = await valueOf('ToolCorrectness', { expected_tools: ['search_docs'] }, s);
    expect(result.value).toBe(0.5);
    expect(prompts()[0]).toContain('search_web');
    expect(result.evaluation).toEqual(usageOf(1));
  });

  it('ArgumentCorrectness: verdicts on the arguments of each tool call', async () => {
    script({ verdicts: { verdicts: [{ verdict: 'yes' }] }, ...REASON });
    const result = await valueOf('ArgumentCorrectness');
    expect(result.value).toBe(1);
    expect(prompts()[0]).toContain('Eiffel Tower completed');
  });

  it('MCPUse: primitive selection and argument scores over the MCP inventory; the minimum', async () => {
    script({ 'reason,score': [{ score: 0.9, reason: 'right tool' }, { score: 0.6, reason: 'vague query' }] });
    const result = await valueOf('MCPUse', {}, mcpSession());
    expect(result.value).toBe(0.6);
    expect(prompts()[0]).toContain('MCP Server docs');
    expect(prompts()[0]).toContain('search_docs');
    expect(result.evaluation).toEqual(usageOf(2));
  });
});

describe('deepeval failures are failed results, never 0', () => {
  it('no MCP servers: MCPUse fails before any call', async () => {
    expect((await failureOf('MCPUse')).message).toMatch(/deepeval:MCPUse: Session rag-1 has no MCP servers/);
    expect(server.requests).toHaveLength(0);
  });

  it('no expected_tools: ToolCorrectness fails naming the option', async () => {
    expect((await failureOf('ToolCorrectness')).message).toMatch(/set the metric's "expected_tools" option/);
  });

  it('no retrieval context: Faithfulness fails', async () => {
    expect((await failureOf('Faithfulness', {}, ragSession('r', { tools: false }))).message).toMatch(/has no retrieval context/);
  });

  it('a reply that is not the JSON asked for fails, with the usage of the calls made', async () => {
    server.setScript([{ text: '{"statements": ["a"]}' }, { text: 'I think they are all relevant.' }]);
    const error = await failureOf('AnswerRelevancy');
    expect(error.message).toMatch(/^deepeval:AnswerRelevancy: /);
    expect(usageOfError(error)).toEqual(usageOf(2));
  });

  it('an endpoint error is a transient failure', async () => {
    server.setScript([], { status: 500, error: { message: 'boom' } });
    const error = await failureOf('Bias');
    expect((error as { transient?: boolean }).transient).toBe(true);
  });
});

describe('deepeval telemetry', () => {
  it('is opted out before the library loads, unless MCE_DEEPEVAL_TELEMETRY=true', () => {
    expect(process.env.DEEPEVAL_TELEMETRY_OPT_OUT).toBe('1'); // the library was loaded by the tests above
    expect(telemetryDisabled({})).toBe(true);
    expect(telemetryDisabled({ MCE_DEEPEVAL_TELEMETRY: 'true' })).toBe(false);
  });
});

describe('deepeval at the LLM-call level', () => {
  it('skips an LLM call that answered with tool calls only (no text to judge), without a call', async () => {
    const s = ragSession();
    s.llmCalls[0]!.outputMessages = [{ role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'search_docs', arguments: {} }] }];
    const outcome = await metrics.get('AnswerRelevancy')!.compute(s.llmCalls[0]!, ctx(s, 'LLMCall'));
    expect(outcome).toEqual({ skipped: 'the LLM call answered with tool calls only: no text answer to judge' });
    expect(server.requests).toHaveLength(0);
  });
});
