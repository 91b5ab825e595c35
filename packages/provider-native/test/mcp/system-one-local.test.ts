/** The local System One model: its features worked by hand, its calibration, its agreement with the labels. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { MCPServer } from '@mce/core';
import {
  CALIBRATED_WEIGHTS,
  FEATURE_NAMES,
  LocalSystemOne,
  agreement,
  answerFrom,
  calibrateOnLabelledSet,
  decisiveWeights,
  checkArguments,
  extractFeatures,
  fitLogistic,
  WEIGHT_BOUND,
  labelledTurns,
  levelProbabilities,
  parseLabelledSet,
  readLabelledSet,
  twinReport,
  type MCPInteraction,
  type SystemOneQuestion,
} from '@mce/provider-native';

const labelled = readLabelledSet(fileURLToPath(new URL('../data/mcp-labelled/', import.meta.url)));

const SHOP: MCPServer = {
  name: 'shop',
  tools: [
    {
      name: 'get_order_status',
      description: 'Shipping and delivery status of a customer order by order id.',
      inputSchema: { type: 'object', properties: { order_id: { type: 'string', pattern: '^ORD-\\d+$' } }, required: ['order_id'] },
    },
    {
      name: 'refund_order',
      description: 'Refund an order and record the reason.',
      inputSchema: {
        type: 'object',
        properties: { order_id: { type: 'string' }, reason: { type: 'string' }, amount: { type: 'number' } },
        required: ['order_id', 'reason'],
      },
    },
    {
      name: 'find_customer',
      description: 'Look up a customer account by email address.',
      inputSchema: { type: 'object', properties: { email: { type: 'string', format: 'email' } }, required: ['email'] },
    },
  ],
  resources: [{ uri: 'shop://orders/{id}/invoice', name: 'invoice', description: 'The invoice of an order' }],
  prompts: [{ name: 'apology', description: 'Apology letter', arguments: [{ name: 'customer', required: true }] }],
};

const feature = (f: Float64Array, name: (typeof FEATURE_NAMES)[number]) => f[FEATURE_NAMES.indexOf(name)];
const interaction = (over: Partial<MCPInteraction>): MCPInteraction => ({
  request: 'Where is my order ORD-12?',
  output: 'Order ORD-12 is in transit.',
  servers: [SHOP],
  calls: [],
  ...over,
});

describe('argument checks against the inputSchema', () => {
  const schema = SHOP.tools[1]!.inputSchema;
  it('finds missing required, unknown and mistyped arguments', () => {
    expect(checkArguments(schema, { order_id: 'ORD-1', reason: 'late' })).toEqual({ checked: true, valid: true, missingRequired: [], unknown: [], typeErrors: 0 });
    expect(checkArguments(schema, { order_id: 'ORD-1', amount: '5', note: 'x' })).toEqual({
      checked: true,
      valid: false,
      missingRequired: ['reason'],
      unknown: ['note'],
      typeErrors: 1,
    });
  });
  it('parses JSON-string arguments, checks formats, and cannot judge without a schema', () => {
    expect(checkArguments(schema, '{"order_id":"ORD-1","reason":"late"}').valid).toBe(true);
    expect(checkArguments(schema, '{not json').valid).toBe(false);
    expect(checkArguments(SHOP.tools[2]!.inputSchema, { email: 'john at example' }).typeErrors).toBe(1);
    expect(checkArguments(undefined, { anything: 1 })).toMatchObject({ checked: false, valid: true });
  });
});

describe('structural features', () => {
  it('a correct call: nothing flagged', () => {
    const f = extractFeatures(
      interaction({ calls: [{ server: 'shop', kind: 'tool', name: 'get_order_status', arguments: { order_id: 'ORD-12' }, result: { status: 'in transit' } }] }),
    );
    expect(FEATURE_NAMES.filter((n) => feature(f, n) !== 0)).toEqual([]);
  });

  it('a failed call the reply passes over, numbers and clauses the reply invents', () => {
    const call = { server: 'shop', kind: 'tool' as const, name: 'get_order_status', arguments: { order_id: 'ORD-12' } };
    const ignored = extractFeatures(interaction({ calls: [{ ...call, error: 'upstream 503' }] }));
    expect(feature(ignored, 'error_unacknowledged')).toBe(1);
    const owned = extractFeatures(interaction({ output: 'Sorry, I could not get the status.', calls: [{ ...call, error: 'upstream 503' }] }));
    expect(feature(owned, 'error_unacknowledged')).toBe(0);
    const ok = { ...call, result: { status: 'in transit', eta: '2024-07-14' } };
    const faithful = extractFeatures(interaction({ output: 'Order ORD-12 is in transit, due 2024-07-14.', calls: [ok] }));
    expect(feature(faithful, 'claim_numbers_unsupported')).toBe(0);
    expect(feature(faithful, 'claim_clause_unsupported')).toBe(0);
    const invented = extractFeatures(interaction({ output: 'Order ORD-12 is in transit, due 2024-07-19, and the courier called twice yesterday.', calls: [ok] }));
    expect(feature(invented, 'claim_numbers_unsupported')).toBe(0.5); // 19 is nowhere; 2024, 07 and 12 are
    expect(feature(invented, 'claim_clause_unsupported')).toBeGreaterThan(0);
  });

  it('a request in two parts with one part left undone; a change asked for and none made', () => {
    const status = { server: 'shop', kind: 'tool' as const, name: 'get_order_status', arguments: { order_id: 'ORD-12' }, result: 'in transit' };
    const refund = { server: 'shop', kind: 'tool' as const, name: 'refund_order', arguments: { order_id: 'ORD-12', reason: 'late delivery' }, result: { ok: true } };
    const request = 'Where is order ORD-12? Then refund it for late delivery.';
    const both = extractFeatures(interaction({ request, output: 'It is in transit; refunded for late delivery.', calls: [status, refund] }));
    expect(feature(both, 'part_uncovered')).toBe(0);
    expect(feature(both, 'write_intent_unmet')).toBe(0);
    expect(feature(both, 'calls_beyond_parts')).toBe(0);
    const half = extractFeatures(interaction({ request, output: 'It is in transit.', calls: [status] }));
    expect(feature(half, 'part_uncovered')).toBe(0.5);
    expect(feature(half, 'write_intent_unmet')).toBe(1);
    // one lookup beyond the parts is allowed (search, then act); a third call is not
    const lookup = { server: 'shop', kind: 'tool' as const, name: 'find_customer', arguments: { email: 'a@b.co' }, result: { id: 1 } };
    expect(feature(extractFeatures(interaction({ request: 'Where is order ORD-12?', output: 'In transit.', calls: [status, refund] })), 'calls_beyond_parts')).toBe(0);
    const extra = extractFeatures(interaction({ request: 'Where is order ORD-12?', output: 'In transit.', calls: [status, refund, lookup] }));
    expect(feature(extra, 'calls_beyond_parts')).toBeCloseTo(1 / 3, 12);
    expect(feature(extra, 'write_without_intent')).toBe(1);
  });

  it('a part is judged on its own words, and is spoken of by what the calls did or returned', () => {
    const status = { server: 'shop', kind: 'tool' as const, name: 'get_order_status', arguments: { order_id: 'ORD-12' }, result: { status: 'in transit' } };
    // The second part shares ORD-12 with the first: those words say nothing of whether the refund was done.
    const request = 'Where is order ORD-12? Then refund ORD-12 for late delivery.';
    expect(feature(extractFeatures(interaction({ request, output: 'ORD-12 is in transit.', calls: [status] })), 'part_uncovered')).toBe(0.5);
    // "their status": the result's key speaks of it though the reply only gives the value
    const asked = 'What is the status of ORD-12?';
    expect(feature(extractFeatures(interaction({ request: asked, output: 'ORD-12: in transit.', calls: [status] })), 'part_uncovered')).toBe(0);
    // the reply's words for what the calls did ("status", "order" from get_order_status) are supported
    const said = extractFeatures(interaction({ output: 'Got the order status: in transit.', calls: [status] }));
    expect(feature(said, 'claim_words_unsupported')).toBe(0);
  });

  it('"tell me", "let me know" and "the open issues" ask for no change', () => {
    const status = { server: 'shop', kind: 'tool' as const, name: 'get_order_status', arguments: { order_id: 'ORD-12' }, result: { status: 'in transit' } };
    for (const request of ['Tell me where order ORD-12 is.', 'Let me know where order ORD-12 is.', 'How many open issues does ORD-12 have?'])
      expect(feature(extractFeatures(interaction({ request, calls: [status] })), 'write_intent_unmet'), request).toBe(0);
    expect(feature(extractFeatures(interaction({ request: 'Tell the customer of ORD-12 it is late.', calls: [status] })), 'write_intent_unmet')).toBe(1);
    // "tell me" is not "post a message": no messaging tool becomes the better one
    const slack: MCPServer = { name: 'chat', tools: [{ name: 'post_message', description: 'Post a message to a channel.' }], resources: [], prompts: [] };
    const f = extractFeatures(interaction({ request: 'Tell me where order ORD-12 is.', servers: [SHOP, slack], calls: [status] }));
    expect(feature(f, 'better_missed')).toBe(0);
  });

  it('servers equal but for a tool\'s schema share the relevance index, each call checked against its own schema', () => {
    const call = { server: 'shop', kind: 'tool' as const, name: 'get_order_status', arguments: { order_id: 'ORD-12' }, result: { status: 'in transit' } };
    const strict = structuredClone(SHOP);
    strict.tools[0]!.inputSchema = { type: 'object', properties: { order_id: { type: 'integer' } }, required: ['order_id'] };
    expect(feature(extractFeatures(interaction({ calls: [call] })), 'schema_invalid')).toBe(0);
    expect(feature(extractFeatures(interaction({ servers: [strict], calls: [call] })), 'type_error')).toBe(1);
    expect(feature(extractFeatures(interaction({ servers: [structuredClone(SHOP)], calls: [call] })), 'schema_invalid')).toBe(0);
  });

  it('unknown primitive, schema failures, ungrounded values and errors, as shares of the calls', () => {
    const f = extractFeatures(
      interaction({
        request: 'Refund ORD-12, it arrived broken',
        output: 'Sorry, I could not refund it.',
        calls: [
          { kind: 'tool', name: 'cancel_order', arguments: { order_id: 'ORD-12' }, error: 'Unknown tool' },
          { kind: 'tool', name: 'refund_order', arguments: { order_id: 'ORD-99', amount: 'all' }, error: 'reason: required' },
        ],
      }),
    );
    expect(feature(f, 'unknown_primitive')).toBe(0.5);
    expect(feature(f, 'schema_invalid')).toBe(0.5);
    expect(feature(f, 'missing_required')).toBe(0.5);
    expect(feature(f, 'type_error')).toBe(0.5); // amount "all" is not a number
    expect(feature(f, 'ungrounded_value')).toBe(0.5); // ORD-99 and "all" are not in the request
    expect(feature(f, 'error_result')).toBe(1);
    expect(feature(f, 'unrecovered_error')).toBe(1);
    expect(feature(f, 'argument_error_result')).toBe(1); // "required"
    expect(feature(f, 'output_failure')).toBe(1);
  });

  it('a retry after an error is not a duplicate; a repeated successful call is', () => {
    const call = { kind: 'tool' as const, name: 'get_order_status', arguments: { order_id: 'ORD-12' } };
    const retry = extractFeatures(interaction({ calls: [{ ...call, error: 'timeout' }, { ...call, result: 'in transit' }] }));
    expect(feature(retry, 'duplicate_call')).toBe(0);
    expect(feature(retry, 'unrecovered_error')).toBe(0);
    const repeat = extractFeatures(interaction({ calls: [{ ...call, result: 'in transit' }, { ...call, result: 'in transit' }] }));
    expect(feature(repeat, 'duplicate_call')).toBe(0.5);
  });

  it('a better primitive left uncalled, a call needed but not made, a needless call', () => {
    const better = extractFeatures(
      interaction({ calls: [{ kind: 'tool', name: 'find_customer', arguments: { email: 'a@b.co' }, result: { id: 1 } }] }),
    );
    expect(feature(better, 'better_missed')).toBeGreaterThan(0.3);
    const none = extractFeatures(interaction({ request: 'What is the delivery status of order ORD-12?', output: 'It is on its way.' }));
    expect(feature(none, 'no_calls')).toBe(1);
    expect(feature(none, 'should_have_called')).toBeGreaterThan(0.5);
    const chat = extractFeatures(interaction({ request: 'Thanks a lot, bye!', output: 'Goodbye!' }));
    expect(feature(chat, 'should_have_called')).toBe(0);
    const needless = extractFeatures(
      interaction({ request: 'What does FAQ mean?', output: 'Frequently asked questions.', calls: [{ kind: 'tool', name: 'get_order_status', arguments: { order_id: 'ORD-1' }, result: 'shipped' }] }),
    );
    expect(feature(needless, 'irrelevant_call')).toBe(1);
  });

  it('resources match their uri templates and prompts their declared arguments', () => {
    const f = extractFeatures(
      interaction({
        calls: [
          { kind: 'resource', name: 'invoice', uri: 'shop://orders/12/invoice', result: 'Invoice 12' },
          { kind: 'prompt', name: 'apology', arguments: { tone: 'warm' }, result: 'Dear customer' },
        ],
      }),
    );
    expect(feature(f, 'unknown_primitive')).toBe(0);
    expect(feature(f, 'missing_required')).toBe(0.5); // the prompt lacks `customer`
    expect(feature(f, 'unknown_argument')).toBe(0.5); // and has an undeclared `tone`
  });

  it('an LLM extraction (hybrid) informs relevance but never grounds a value', () => {
    const i = interaction({
      request: 'Refund 15 euros on ORD-12',
      calls: [{ kind: 'tool', name: 'refund_order', arguments: { order_id: 'ORD-12', reason: 'late', amount: 150 }, result: 'ok' }],
    });
    const extracted = 'asked: refund on ORD-12\ndone: refund_order with amount 150 and reason late';
    expect(feature(extractFeatures(i, extracted), 'ungrounded_value')).toBe(1);
    expect(feature(extractFeatures(i), 'ungrounded_value')).toBe(1);
  });

  it('values from an earlier result or an earlier turn are grounded', () => {
    const f = extractFeatures(
      interaction({
        request: 'Find the account of li@example.com and check their last order',
        priorContext: 'The customer asked about delivery yesterday.',
        calls: [
          { kind: 'tool', name: 'find_customer', arguments: { email: 'li@example.com' }, result: { last_order: 'ORD-4521' } },
          { kind: 'tool', name: 'get_order_status', arguments: { order_id: 'ORD-4521' }, result: 'delivered' },
        ],
        output: 'Their last order ORD-4521 was delivered.',
      }),
    );
    expect(feature(f, 'ungrounded_value')).toBe(0);
  });
});

describe('the four levels', () => {
  it('Binomial(3, p) levels whose expected value is p', () => {
    expect(levelProbabilities(0.5)).toEqual([0.125, 0.375, 0.375, 0.125]);
    const a = answerFrom('task', levelProbabilities(0.9));
    expect(a.probabilities.map((x) => Number(x.toFixed(6)))).toEqual([0.001, 0.027, 0.243, 0.729]);
    expect(a.level).toBe(3);
    expect(a.confidence).toBeCloseTo(0.729, 12);
    expect(a.value).toBeCloseTo(0.9, 12);
  });
  it('unnormalised probabilities are normalised', () => {
    expect(answerFrom('task', [1, 1, 0, 2]).probabilities).toEqual([0.25, 0.25, 0, 0.5]);
  });
});

/** The held-out figures of the committed model (bench/mcp prints them in full), as floors: a change that lowers one fails. */
const HELD_OUT = { agreement: 0.861, usePairwise: 0.964, taskPairwise: 0.964, useGap: 0.505, taskGap: 0.455 };

describe('calibration', () => {
  it('the committed weights are exactly what the calibration script produces from the labelled set', () => {
    expect(calibrateOnLabelledSet(labelled)).toEqual(CALIBRATED_WEIGHTS);
  });

  it('the task answer\'s weights are all ≤ −0.05 (every feature is a failure signal for it, and lowers it a little at least); a fit kept so stays at the bound where it would rise', () => {
    expect(WEIGHT_BOUND).toBe(-0.05);
    expect(CALIBRATED_WEIGHTS.questions.task.weights.every((w) => w <= WEIGHT_BOUND)).toBe(true);
    // feature 0 present only in good examples: free, its weight rises; kept ≤ the bound, it stays there
    const xs = [0, 0, 1, 1].map((v) => Float64Array.from(FEATURE_NAMES.map((_, i) => (i === 0 ? v : 0))));
    expect(fitLogistic(xs, [0, 0, 1, 1], 0.1).weights[0]).toBeGreaterThan(2);
    expect(fitLogistic(xs, [0, 0, 1, 1], 0.1, undefined, true).weights[0]).toBe(WEIGHT_BOUND);
    expect(fitLogistic(xs, [1, 1, 0, 0], 0.1, undefined, true).weights[0]).toBeLessThan(-2);
  });

  it('fits a separable toy problem in the right direction', () => {
    const xs = [0, 0, 1, 1].map((v) => Float64Array.from(FEATURE_NAMES.map((_, i) => (i === 0 ? v : 0))));
    const w = fitLogistic(xs, [1, 1, 0, 0], 0.1);
    expect(w.weights[0]).toBeLessThan(-2);
    expect(w.bias).toBeGreaterThan(1);
  });

  it('the labelled set: ≥ 400 interactions, every failure class in both splits, each degraded one beside its good twin', () => {
    const items = parseLabelledSet(labelled);
    const twinned = items.filter((i) => !i.category.startsWith('legacy:'));
    expect(twinned.length).toBeGreaterThanOrEqual(400);
    const byId = new Map(items.map((i) => [i.id, i]));
    for (const i of twinned.filter((x) => x.twin !== null)) {
      const good = byId.get(i.twin!)!;
      expect(good.category).toBe('good');
      expect(good.holdout).toBe(i.holdout);
      expect(good.conversation.turns[0]!.request).toBe(i.conversation.turns[0]!.request);
    }
    const classes = (holdout: boolean) => new Set(twinned.filter((i) => i.holdout === holdout && i.twin !== null).map((i) => i.category));
    const failureClasses = ['wrong_tool', 'missing_call', 'needless_call', 'invalid_arguments', 'hallucinated_arguments', 'ignored_error', 'unsupported_claim', 'partial_completion'];
    expect([...classes(false)].sort()).toEqual([...failureClasses].sort());
    expect([...classes(true)].sort()).toEqual([...failureClasses].sort());
    expect(twinned.filter((i) => i.holdout).length).toBeGreaterThanOrEqual(100);
    // graded: at least three of the four levels for every question
    const turns = twinned.flatMap((i) => i.turns);
    for (const q of ['primitives', 'arguments', 'task'] as const)
      expect(new Set(turns.map((t) => t.labels[q])).size, q).toBeGreaterThanOrEqual(3);
  });

  it('on the held-out split: agreement, pairwise ranking and per-class gaps at least the figures docs/mcp-metrics.md reports', async () => {
    const model = new LocalSystemOne();
    const items = parseLabelledSet(labelled).filter((i) => i.holdout);
    const held = await agreement(model, items.flatMap((i) => i.turns));
    expect(held.overall).toBeGreaterThanOrEqual(HELD_OUT.agreement);
    const use = new Map<string, number>();
    const task = new Map<string, number>();
    for (const i of items) {
      const { answers } = model.answerSync({ interaction: i.turns[0]!.interaction, questions: ['primitives', 'arguments', 'task'] });
      const values = Object.fromEntries(answers.map((a) => [a.question, a.value])) as Record<SystemOneQuestion, number>;
      const w = decisiveWeights(values, { primitives: 1 / 3, arguments: 1 / 3, task: 1 / 3 });
      use.set(i.id, answers.reduce((s, a) => s + w[a.question] * a.value, 0));
      task.set(i.id, answers[2]!.value);
    }
    const u = twinReport(items, use);
    const t = twinReport(items, task);
    expect(u.pairwiseAccuracy).toBeGreaterThanOrEqual(HELD_OUT.usePairwise);
    expect(t.pairwiseAccuracy).toBeGreaterThanOrEqual(HELD_OUT.taskPairwise);
    for (const cls of Object.keys(t.perClass)) expect(t.perClass[cls]!.gap, `MCPTaskCompletion ${cls}`).toBeGreaterThanOrEqual(HELD_OUT.taskGap);
    for (const cls of Object.keys(u.perClass)) expect(u.perClass[cls]!.gap, `MCPUse ${cls}`).toBeGreaterThanOrEqual(HELD_OUT.useGap);
  });

  it('the committed JSON Lines are exactly what the scenarios and rules produce', async () => {
    const scripts = new URL('../../scripts/mcp-labelled-set/items.mjs', import.meta.url).href;
    const made = (await import(scripts)) as {
      trainItems(catalogs: unknown): unknown[];
      heldoutItems(): unknown[];
      jsonLines(items: unknown[]): string;
    };
    const catalogs = (labelled.catalogs as { servers: unknown }).servers;
    const file = (name: string) => readFileSync(new URL(`../data/mcp-labelled/${name}`, import.meta.url), 'utf8');
    expect(made.jsonLines(made.trainItems(catalogs))).toBe(file('train.jsonl'));
    expect(made.jsonLines(made.heldoutItems())).toBe(file('heldout.jsonl'));
  });

  it('is deterministic and refuses weights fitted on other features', async () => {
    const model = new LocalSystemOne();
    const turn = labelledTurns(labelled)[0]!;
    const q = ['primitives', 'arguments', 'task'] as const;
    expect(await model.answer({ interaction: turn.interaction, questions: q })).toEqual(
      await model.answer({ interaction: turn.interaction, questions: q }),
    );
    expect(() => new LocalSystemOne({ ...CALIBRATED_WEIGHTS, features: ['x'] })).toThrow(/other features/);
  });
});
