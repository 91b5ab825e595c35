import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Metric, type MetricValue, type OntologyLevel } from '@mce/core';
import { Judge, judgeConfigFromEnv, usageOfError, type CallUsage } from '@mce/provider-native';
import { ragasMetrics, ragasProvider } from '@mce/provider-ragas';
import { startScriptedLLMServer, type RecordedRequest, type ScriptedLLMServer, type ScriptedStep } from '../../../test-support/scripted-llm-server.mjs';
import { ANSWER, QUESTION, REFERENCE, RETRIEVED, ragSession, metricContext, valueAt, failureAt } from '../../../test-support/library-session.js';

const CHAT_MODEL = 'gpt-4o-mini';
const EMBEDDING_MODEL = 'text-embedding-3-small';
// Prices of the test judge: chat 1 µ$ / prompt token, 2 µ$ / completion token; embeddings 0.1 µ$ / token.
const pricing = (model: string, u: CallUsage) =>
  model === EMBEDDING_MODEL ? u.promptTokens * 1e-7 : u.promptTokens * 1e-6 + u.completionTokens * 2e-6;

let server: ScriptedLLMServer;
let metrics: Map<string, Metric>;
beforeAll(async () => {
  server = await startScriptedLLMServer();
  const judge = new Judge(
    judgeConfigFromEnv({ LLM_MODEL_NAME: CHAT_MODEL, OPENAI_API_KEY: 'k', LLM_BASE_MODEL_URL_MCE: server.url, MCE_JUDGE_MAX_RETRIES: '0' }),
    { pricing },
  );
  metrics = new Map(ragasMetrics(() => judge).map((m) => [m.metadata.name, m]));
});
afterAll(() => server.close());

/** Tool-call replies by function name; embeddings by input text. */
type Replies = Record<string, unknown | ((body: RecordedRequest['body']) => unknown)>;
function script(replies: Replies, vectors: Record<string, number[]> = {}): void {
  server.setScript((body): ScriptedStep => {
    if (body.input !== undefined) return { embedding: vectors[String(body.input)] ?? [0, 0, 1] };
    const tool = (body.tool_choice as { function?: { name?: string } } | undefined)?.function?.name ?? '';
    const reply = replies[tool];
    if (reply === undefined) return { status: 400, error: { message: `unexpected tool ${tool}` } };
    return { toolCalls: [{ name: tool, arguments: typeof reply === 'function' ? (reply as (b: unknown) => unknown)(body) : reply }] };
  });
}

const ctx = metricContext;
const valueOf = (name: string, session = ragSession(), level: OntologyLevel = 'Session', options = {}): Promise<MetricValue> =>
  valueAt(metrics.get(name)!, session, level, options);
const failureOf = (name: string, session = ragSession(), options = {}): Promise<Error> => failureAt(metrics.get(name)!, session, 'Session', options);

const chats = () => server.requests.filter((r) => r.path?.endsWith('/chat/completions'));
const embeddings = () => server.requests.filter((r) => r.path?.endsWith('/embeddings'));
const prompt = (r: RecordedRequest) => r.body.messages?.[0]?.content ?? '';
// The retrieval context as the library's templates show it: each tool result, named by its tool.
const CONTEXT_IN_PROMPT = `search_docs: ${RETRIEVED}`;

beforeEach(() => server.setScript([]));

describe('ragas provider', () => {
  it('names every metric ragas:<Name> at the levels where its inputs exist', () => {
    expect(ragasProvider.name).toBe('ragas');
    expect([...metrics.keys()]).toEqual([
      'Faithfulness', 'AnswerRelevancy', 'ContextPrecision', 'ContextRecall', 'ContextRelevancy', 'AnswerCorrectness', 'AnswerSimilarity',
    ]);
    for (const m of metrics.values()) {
      expect(m.metadata).toMatchObject({ provider: 'ragas', nature: 'llm-judged', valueRange: '0.0-1.0', levels: ['Session', 'MASCall', 'AgentCall'] });
    }
  });

  it('Faithfulness: statements extracted, then judged against the tool results; score = share supported', async () => {
    script({
      extract_statements: { statements: ['Completed in 1889.', 'It is in Rome.'] },
      judge_statements: {
        faithfulness: [
          { statement: 'Completed in 1889.', verdict: 1, reason: 'stated' },
          { statement: 'It is in Rome.', verdict: 0, reason: 'not stated' },
        ],
      },
    });
    const result = await valueOf('Faithfulness');
    expect(result.value).toBe(0.5);
    const [extract, judge] = chats();
    expect(chats()).toHaveLength(2);
    expect(prompt(extract!)).toContain(`question: ${QUESTION}`);
    expect(prompt(extract!)).toContain(`answer: ${ANSWER}`);
    expect(prompt(judge!)).toContain(`context: ${CONTEXT_IN_PROMPT}`);
    expect(extract!.body).toMatchObject({ model: CHAT_MODEL, temperature: 0, max_tokens: 600 });
    // Two scripted replies of 100 prompt + 20 completion tokens.
    expect(result.evaluation).toEqual({ model: CHAT_MODEL, promptTokens: 200, completionTokens: 40, totalTokens: 240, costUsd: 200e-6 + 40 * 2e-6 });
    expect(result.details).toMatchObject({ judgeCalls: 2, library: 'autoevals@0.3.0' });
  });

  it('Faithfulness at the agent level reads the agent\'s input, answer and tool results', async () => {
    script({
      extract_statements: { statements: ['a'] },
      judge_statements: { faithfulness: [{ statement: 'a', verdict: 1, reason: 'ok' }] },
    });
    expect((await valueOf('Faithfulness', ragSession(), 'AgentCall')).value).toBe(1);
    expect(prompt(chats()[1]!)).toContain(CONTEXT_IN_PROMPT);
  });

  it('AnswerRelevancy: N generated questions compared with the input by embeddings (scaled from 0.7), priced per model', async () => {
    script(
      { generate_question: { question: 'When was it completed?', noncommittal: 0 } },
      { [QUESTION]: [1, 0, 0], 'When was it completed?': [0.9, Math.sqrt(1 - 0.81), 0] },
    );
    const result = await valueOf('AnswerRelevancy', ragSession(), 'Session', { strictness: 2, embedding_model: EMBEDDING_MODEL });
    expect(result.value).toBeCloseTo((0.9 - 0.7) / 0.3, 5);
    expect(chats()).toHaveLength(2);
    expect(embeddings()).toHaveLength(4);
    expect(prompt(chats()[0]!)).toContain(`answer: ${ANSWER}\ncontext: ${CONTEXT_IN_PROMPT}`);
    expect(embeddings().map((r) => r.body.model)).toEqual(Array(4).fill(EMBEDDING_MODEL));
    expect(embeddings().map((r) => r.body.input).sort()).toEqual([QUESTION, QUESTION, 'When was it completed?', 'When was it completed?'].sort());
    // 2 chat replies (100 + 20) and 4 embedding replies (10 prompt tokens each).
    expect(result.evaluation).toEqual({
      model: CHAT_MODEL,
      promptTokens: 240,
      completionTokens: 40,
      totalTokens: 280,
      costUsd: expect.closeTo(200e-6 + 40 * 2e-6 + 40 * 1e-7, 12),
    });
  });

  it('AnswerRelevancy is 0 when the judge finds the answer noncommittal, as Ragas defines it', async () => {
    script({ generate_question: { question: 'q', noncommittal: 1 } }, { [QUESTION]: [1, 0, 0], q: [1, 0, 0] });
    expect((await valueOf('AnswerRelevancy', ragSession(), 'Session', { strictness: 1 })).value).toBe(0);
  });

  it('ContextPrecision: the verdict whether the context was useful for the reference answer', async () => {
    script({ verify: { reason: 'useful', verdict: 1 } });
    const result = await valueOf('ContextPrecision');
    expect(result.value).toBe(1);
    expect(prompt(chats()[0]!)).toContain(`question: ${QUESTION}\ncontext: ${CONTEXT_IN_PROMPT}\nanswer: ${REFERENCE}`);
    expect(result.evaluation?.totalTokens).toBe(120);
  });

  it('ContextRecall: share of reference sentences attributed to the context; the reference option wins', async () => {
    script({
      extract_statements: {
        statements: [
          { statement: 'x', attributed: 1, reason: 'r' },
          { statement: 'y', attributed: 1, reason: 'r' },
          { statement: 'z', attributed: 0, reason: 'r' },
        ],
      },
    });
    const result = await valueOf('ContextRecall', ragSession(), 'Session', { reference: 'Built in 1889 by Eiffel.' });
    expect(result.value).toBeCloseTo(2 / 3, 12);
    expect(prompt(chats()[0]!)).toContain('answer: Built in 1889 by Eiffel.');
  });

  it('ContextRelevancy: relevant sentences\' share of the context, in characters', async () => {
    const sentence = 'The Eiffel Tower, in Paris, was completed in 1889';
    script({ extract_sentences: { sentences: [{ sentence, reasons: ['answers it'] }] } });
    const result = await valueOf('ContextRelevancy');
    expect(result.value).toBeCloseTo(sentence.length / CONTEXT_IN_PROMPT.length, 12);
  });

  it('AnswerCorrectness: 0.75 × statement F1 + 0.25 × embedding similarity, every call on the counted client', async () => {
    script(
      { classify_statements: { TP: ['1889'], FP: ['Paris'], FN: [] } },
      { [ANSWER]: [1, 0, 0], [REFERENCE]: [0.6, 0.8, 0] },
    );
    const result = await valueOf('AnswerCorrectness', ragSession(), 'Session', { embedding_model: EMBEDDING_MODEL });
    const f1 = 1 / (1 + 0.5 * 1);
    expect(result.value).toBeCloseTo(0.75 * f1 + 0.25 * 0.6, 5);
    expect(prompt(chats()[0]!)).toContain(`question: ${QUESTION}\nanswer: ${ANSWER}\nground_truth: ${REFERENCE}`);
    expect(embeddings()).toHaveLength(2);
    expect(result.evaluation).toMatchObject({ promptTokens: 120, completionTokens: 20, totalTokens: 140 });
  });

  it('AnswerSimilarity: embedding cosine of response and reference (embedding calls only)', async () => {
    script({}, { [ANSWER]: [1, 0, 0], [REFERENCE]: [0.8, 0.6, 0] });
    const result = await valueOf('AnswerSimilarity', ragSession(), 'Session', { embedding_model: EMBEDDING_MODEL });
    expect(result.value).toBeCloseTo(0.8, 5);
    expect(chats()).toHaveLength(0);
    expect(result.evaluation).toEqual({ model: CHAT_MODEL, promptTokens: 20, completionTokens: 0, totalTokens: 20, costUsd: expect.closeTo(20e-7, 12) });
  });
});

describe('ragas failures are failed results, never 0', () => {
  it('no retrieval context (no tool result in scope): fails before any judge call', async () => {
    const error = await failureOf('Faithfulness', ragSession('r', { tools: false }));
    expect(error.message).toMatch(/ragas:Faithfulness: session r has no retrieval context/);
    expect(server.requests).toHaveLength(0);
  });

  it('no reference answer: fails naming the option to set', async () => {
    const error = await failureOf('ContextRecall', ragSession('r', { reference: false }));
    expect(error.message).toMatch(/no reference answer \(set the metric's "reference" option/);
  });

  it('an unparseable judge reply fails and carries the usage of the calls made', async () => {
    server.setScript([{ toolCalls: [{ name: 'extract_statements', arguments: '{"statements": [' }] }]);
    const error = await failureOf('Faithfulness');
    expect(error.message).toMatch(/^ragas:Faithfulness: .*JSON/);
    expect(usageOfError(error)).toMatchObject({ model: CHAT_MODEL, promptTokens: 100, completionTokens: 20, totalTokens: 120 });
  });

  it('a text reply where the library asked for a tool call fails', async () => {
    server.setScript([{ text: 'Score: 5' }]);
    expect((await failureOf('ContextPrecision')).message).toBe('ragas:ContextPrecision: No tool call returned');
  });

  it('no statements extracted: the ratio is undefined (Python Ragas: NaN), a failure rather than 0', async () => {
    script({ extract_statements: { statements: [] }, judge_statements: { faithfulness: [] } });
    expect((await failureOf('Faithfulness')).message).toMatch(/no statements: the score is undefined/);
  });

  it('an endpoint error is a transient failure', async () => {
    server.setScript([], { status: 503, error: { message: 'overloaded' } });
    const error = await failureOf('ContextPrecision');
    expect(error.message).toMatch(/^ragas:ContextPrecision: 503/);
    expect((error as { transient?: boolean }).transient).toBe(true);
  });
});

describe('ragas record/replay key', () => {
  it('depends on the inputs, options and model; absent when an input is missing', () => {
    const m = metrics.get('ContextRecall')!;
    const s = ragSession();
    const key = m.cacheKey!(s, ctx(s, 'Session'));
    expect(key).toMatch(/^ragas\|ContextRecall\|autoevals@0\.3\.0\|gpt-4o-mini\|in:[0-9a-f]{64}$/);
    expect(m.cacheKey!(s, ctx(s, 'Session'))).toBe(key);
    expect(m.cacheKey!(s, ctx(s, 'Session', { reference: 'other' }))).not.toBe(key);
    expect(m.cacheKey!(s, ctx(s, 'Session', { model: 'gpt-4o' }))).toContain('|gpt-4o|');
    const bare = ragSession('b', { reference: false });
    expect(m.cacheKey!(bare, ctx(bare, 'Session'))).toBeUndefined();
  });
});
