/**
 * Structural features of an MCP interaction, the inputs of the local System One model. Each is a number in [0, 1]
 * with a fixed meaning; the calibrated weights (weights.json) turn them into probabilities.
 */
import type { MCPPrompt, MCPResource, MCPServer, MCPTool } from '@mce/core';
import type { MCPCallRecord, MCPInteraction } from '../interaction.js';
import { valueText } from '../interaction.js';
import { Bm25Index, coverage, tokenSet, tokens } from './lexical.js';
import { checkArguments } from './schema-validator.js';

export const FEATURE_NAMES = [
  'no_calls', // nothing was called
  'unknown_primitive', // share of calls to a primitive no available server offers
  'should_have_called', // no call although a primitive matches the request well
  'better_missed', // an uncalled primitive matches the request better than every called one
  'irrelevant_call', // share of calls whose primitive matches neither the request nor its own arguments' origin
  'duplicate_call', // share of calls repeating an earlier call (same primitive, same arguments)
  'call_count', // number of calls, saturating at 5
  'schema_invalid', // share of calls whose arguments fail the inputSchema
  'missing_required', // share of calls lacking a required argument
  'unknown_argument', // share of calls with an argument the schema does not declare
  'type_error', // share of calls with a wrong type / enum / format
  'ungrounded_value', // share of calls with an argument value found neither in the request, earlier turns nor results
  'argument_error_result', // an error result blames the arguments
  'error_result', // share of calls that returned an error
  'unrecovered_error', // an error with no later successful call of the same primitive
  'output_empty', // the user saw nothing
  'output_failure', // the reply says the task failed / could not be done
  'result_unused', // share of successful results the reply does not reflect
  'output_off_request', // the reply shares little with the request
] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];
export type FeatureVector = Float64Array;

interface Primitive {
  kind: MCPCallRecord['kind'];
  name: string;
  uri?: string;
  server: string;
  tool?: MCPTool;
  prompt?: MCPPrompt;
  resource?: MCPResource;
  /** Tokens describing it, for relevance. */
  doc: string[];
}

interface Inventory {
  prims: Primitive[];
  index: Bm25Index;
}
const inventoryCache = new WeakMap<readonly MCPServer[], Inventory>();
/** Sessions of one application carry equal inventories in distinct objects: also cached by content. */
const inventoryByContent = new Map<string, Inventory>();

function schemaWords(schema: Record<string, unknown> | undefined): string {
  const props = (schema?.properties ?? {}) as Record<string, { description?: unknown }>;
  return Object.entries(props)
    .map(([k, v]) => `${k} ${typeof v?.description === 'string' ? v.description : ''}`)
    .join(' ');
}

/**
 * Every primitive the servers offer, with its relevance document (name counted twice: names carry the intent) and
 * their BM25 index; cached per server list (a session's inventory is judged many times).
 */
export function inventory(servers: readonly MCPServer[]): Inventory {
  const hit = inventoryCache.get(servers);
  if (hit) return hit;
  const key = JSON.stringify(servers);
  const same = inventoryByContent.get(key);
  if (same) {
    inventoryCache.set(servers, same);
    return same;
  }
  const out: Primitive[] = [];
  for (const s of servers) {
    for (const t of s.tools ?? [])
      out.push({
        kind: 'tool',
        name: t.name,
        server: s.name,
        tool: t,
        doc: tokens(`${t.name} ${t.name} ${t.description ?? ''} ${schemaWords(t.inputSchema)}`),
      });
    for (const r of s.resources ?? [])
      out.push({
        kind: 'resource',
        name: r.name ?? r.uri,
        uri: r.uri,
        server: s.name,
        resource: r,
        doc: tokens(`${r.name ?? ''} ${r.name ?? ''} ${r.uri} ${r.description ?? ''}`),
      });
    for (const p of s.prompts ?? [])
      out.push({
        kind: 'prompt',
        name: p.name,
        server: s.name,
        prompt: p,
        doc: tokens(`${p.name} ${p.name} ${p.description ?? ''} ${(p.arguments ?? []).map((a) => a.name).join(' ')}`),
      });
  }
  const built = { prims: out, index: new Bm25Index(out.map((p) => p.doc)) };
  inventoryCache.set(servers, built);
  if (inventoryByContent.size > 1000) inventoryByContent.clear();
  inventoryByContent.set(key, built);
  return built;
}

/** Templates split into their literal pieces (a placeholder between each two), kept for the templates seen last. */
const templates = new Map<string, string[]>();

/**
 * Whether a uri fits a resource uri template (`docs://handbook/{section}`): each `{…}` stands for one or more
 * characters other than `/`. Matched by walking the reachable positions, not with a regular expression: a template
 * from a trace with many adjacent placeholders made a backtracking pattern take minutes on a short uri.
 */
export function templateMatches(template: string, uri: string): boolean {
  if (!template.includes('{')) return template === uri;
  let literals = templates.get(template);
  if (!literals) {
    literals = template.split(/\{[^}]*\}/);
    if (templates.size >= 1000) templates.clear();
    templates.set(template, literals);
  }
  const first = literals[0] as string;
  if (!uri.startsWith(first)) return false;
  let positions = new Set<number>([first.length]);
  for (let j = 1; j < literals.length; j++) {
    const literal = literals[j] as string;
    const next = new Set<number>();
    for (const start of positions) {
      const slash = uri.indexOf('/', start);
      const end = slash === -1 ? uri.length : slash; // the placeholder's characters stop at the next '/'
      for (let stop = start + 1; stop <= end; stop++) if (uri.startsWith(literal, stop)) next.add(stop + literal.length);
    }
    if (next.size === 0) return false;
    positions = next;
  }
  return positions.has(uri.length);
}

/** The available primitive a call used, or -1. */
export function findPrimitive(call: MCPCallRecord, prims: readonly Primitive[]): number {
  let fallback = -1;
  for (let i = 0; i < prims.length; i++) {
    const p = prims[i]!;
    if (p.kind !== call.kind) continue;
    const same =
      p.kind === 'resource'
        ? (call.uri !== undefined && templateMatches(p.uri ?? '', call.uri)) ||
          p.name === call.name ||
          (p.uri !== undefined && templateMatches(p.uri, call.name))
        : p.name === call.name;
    if (!same) continue;
    if (!call.server || p.server === call.server) return i;
    fallback = i;
  }
  return fallback;
}

function parseArgs(args: unknown): unknown {
  if (typeof args !== 'string') return args;
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

function scalars(value: unknown, out: Array<string | number>): void {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number') out.push(value);
  else if (Array.isArray(value)) for (const v of value) scalars(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) scalars(v, out);
}

const NUMBER_WORDS: Record<string, number> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12,
  fifteen: 15, twenty: 20, thirty: 30, fifty: 50, hundred: 100, a: 1, an: 1, single: 1, couple: 2, dozen: 12,
};
const isWordChar = (ch: string | undefined) => ch !== undefined && /[a-z0-9]/.test(ch);

/** `needle` occurs in `hay` as a whole phrase (not inside a longer word or number). */
function containsPhrase(hay: string, needle: string): boolean {
  let from = 0;
  for (;;) {
    const at = hay.indexOf(needle, from);
    if (at < 0) return false;
    const before = hay[at - 1];
    const after = hay[at + needle.length];
    const edgeOk = (inner: string | undefined, outer: string | undefined) => !isWordChar(inner) || !isWordChar(outer);
    if (edgeOk(needle[0], before) && edgeOk(needle[needle.length - 1], after)) return true;
    from = at + 1;
  }
}

/** Whether an argument value is found in (or spelled out by) the context. */
function grounded(value: string | number, contextLower: string, contextTokens: ReadonlySet<string>): boolean {
  if (typeof value === 'number') {
    if (containsPhrase(contextLower, String(value))) return true;
    if (containsPhrase(contextLower.replace(/(\d),(\d{3})/g, '$1$2'), String(value))) return true;
    for (const [word, n] of Object.entries(NUMBER_WORDS)) if (n === value && containsPhrase(contextLower, word)) return true;
    return false;
  }
  const lower = value.toLowerCase().trim();
  if (!lower) return true;
  if (containsPhrase(contextLower, lower)) return true;
  const t = tokens(value);
  if (t.length === 0) return !/[a-z0-9]/.test(lower); // bare punctuation ('/', '*') is structure, not a claim
  return coverage(t, contextTokens) >= 0.6;
}

const ARGUMENT_BLAME = /\b(invalid|missing|required|argument|parameter|param|expected|must be|unknown field|not a valid|validation|schema)\b/i;
const FAILURE_CUE =
  /\b(sorry|unable|couldn'?t|could not|cannot|can'?t|failed|failure|unfortunately|not able|no access|not possible|went wrong|error occurred)\b/i;

function errorText(call: MCPCallRecord): string {
  if (call.error === undefined) return '';
  return call.error === true ? valueText(call.result) : call.error;
}

/** The features of an interaction; `extracted` (hybrid mode) is added to the request's words for relevance. */
export function extractFeatures(interaction: MCPInteraction, extracted?: string): FeatureVector {
  const f = new Float64Array(FEATURE_NAMES.length);
  const { prims, index } = inventory(interaction.servers);
  const calls = interaction.calls;
  const n = calls.length;
  const requestText = extracted ? `${interaction.request}\n${extracted}` : interaction.request;
  const query = tokens(requestText);
  const scores = index.score(query);
  let maxScore = 0;
  for (const s of scores) if (s > maxScore) maxScore = s;
  const sat = (s: number) => s / (s + 1.5);
  // The request's intent words: what is left once the words the arguments carry (paths, names, ids) are removed,
  // so a primitive is not "better" just because its description shares an argument's words.
  const callArgs = calls.map((call) => parseArgs(call.arguments));
  const callValues = callArgs.map((args) => {
    const vals: Array<string | number> = [];
    scalars(args, vals);
    return vals;
  });
  const argumentWords = new Set<string>();
  for (const vals of callValues) for (const v of vals) if (typeof v === 'string') for (const t of tokens(v)) argumentWords.add(t);
  // A failed call is recovered when a call of the same name succeeds after it.
  const lastSuccessOf = new Map<string, number>();
  calls.forEach((call, i) => {
    if (call.error === undefined) lastSuccessOf.set(call.name, i);
  });
  // Follow-up turns ("and the limit for hotels?") take their topic from the earlier conversation.
  const contextScores = interaction.priorContext
    ? index.score(tokens(`${requestText}\n${interaction.priorContext}`))
    : scores;
  const intentScores = argumentWords.size ? index.score(query.filter((t) => !argumentWords.has(t))) : scores;

  f[0] = n === 0 ? 1 : 0;
  f[6] = Math.min(n, 5) / 5;
  if (n === 0) f[2] = sat(maxScore);

  // Grounding context grows with each call's result: later arguments may come from earlier results.
  // Only the user's own words (and earlier turns / results) ground a value: an LLM extraction (hybrid) may restate
  // what the agent invented, so it informs relevance but never grounding.
  let contextLower = `${interaction.request}\n${interaction.priorContext ?? ''}`.toLowerCase();
  const contextTokens = tokenSet(`${interaction.request}\n${interaction.priorContext ?? ''}`);

  let unknownCalls = 0, irrelevant = 0, duplicates = 0, invalid = 0, missing = 0, unknownArgs = 0, typeErr = 0;
  let errors = 0, unrecovered = 0, argBlame = 0, successes = 0, unused = 0;
  let maxCalledIntent = 0;
  let callsWithUngrounded = 0;
  const called = new Set<number>();
  const seen = new Set<string>();
  const outputTokens = tokenSet(interaction.output);

  for (let i = 0; i < n; i++) {
    const call = calls[i]!;
    const idx = findPrimitive(call, prims);
    const args = callArgs[i];
    const key = `${call.kind}:${call.name}:${call.uri ?? ''}:${valueText(args)}`;
    if (seen.has(key)) duplicates++;
    // A retry of a call that failed is not a repeat: only successful calls make the same call needless.
    if (call.error === undefined) seen.add(key);

    const vals = callValues[i]!;
    let callUngrounded = 0;
    for (const v of vals) if (!grounded(v, contextLower, contextTokens)) callUngrounded++;
    if (callUngrounded > 0) callsWithUngrounded++;

    if (idx < 0) {
      unknownCalls++;
    } else {
      called.add(idx);
      const p = prims[idx]!;
      const score = Math.max(scores[idx] ?? 0, contextScores[idx] ?? 0);
      maxCalledIntent = Math.max(maxCalledIntent, intentScores[idx] ?? 0);
      // A call matching nothing in the request is needless unless its arguments come from the conversation.
      if (sat(score) < 0.3 && (vals.length === 0 || callUngrounded === vals.length)) irrelevant++;
      if (p.kind === 'tool') {
        const check = checkArguments(p.tool?.inputSchema, args);
        if (!check.valid) invalid++;
        if (check.missingRequired.length) missing++;
        if (check.unknown.length) unknownArgs++;
        if (check.typeErrors) typeErr++;
      } else if (p.kind === 'prompt') {
        const declared = p.prompt?.arguments ?? [];
        const given = args && typeof args === 'object' ? Object.keys(args as object) : [];
        const lacks = declared.some((a) => a.required && !given.includes(a.name));
        const extra = given.some((g) => !declared.some((a) => a.name === g));
        if (lacks || extra) invalid++;
        if (lacks) missing++;
        if (extra) unknownArgs++;
      }
    }

    if (call.error !== undefined) {
      errors++;
      if (ARGUMENT_BLAME.test(errorText(call))) argBlame++;
      if ((lastSuccessOf.get(call.name) ?? -1) < i) unrecovered++;
    } else {
      const res = valueText(call.result);
      if (res) {
        successes++;
        // The result's values, not its JSON keys, are what a reply would reflect.
        const resultValues: Array<string | number> = [];
        scalars(parseArgs(call.result), resultValues);
        const rt = tokenSet(resultValues.join(' '));
        let shared = 0;
        for (const t of rt) if (outputTokens.has(t)) shared++;
        if (shared < Math.min(2, rt.size)) unused++;
        contextLower += `\n${res.toLowerCase()}`;
        for (const t of rt) contextTokens.add(t);
      }
    }
  }

  if (n > 0) {
    let maxUncalled = 0;
    for (let i = 0; i < prims.length; i++) if (!called.has(i)) maxUncalled = Math.max(maxUncalled, intentScores[i] ?? 0);
    f[1] = unknownCalls / n;
    f[3] = Math.max(0, sat(maxUncalled) - sat(maxCalledIntent));
    f[4] = irrelevant / n;
    f[5] = duplicates / n;
    f[7] = invalid / n;
    f[8] = missing / n;
    f[9] = unknownArgs / n;
    f[10] = typeErr / n;
    f[11] = callsWithUngrounded / n;
    f[12] = argBlame > 0 ? 1 : 0;
    f[13] = errors / n;
    f[14] = unrecovered > 0 ? 1 : 0;
    f[17] = successes > 0 ? unused / successes : 0;
  }
  f[15] = interaction.output.trim() ? 0 : 1;
  f[16] = FAILURE_CUE.test(interaction.output) ? 1 : 0;
  const rq = tokens(interaction.request);
  f[18] = interaction.output.trim() && rq.length ? 1 - coverage(rq, outputTokens) : 0;
  return f;
}
