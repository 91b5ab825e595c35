/**
 * Structural features of an MCP interaction, the inputs of the local System One model. Each is a number in [0, 1]
 * with a fixed meaning; the calibrated weights (weights.json) turn them into probabilities.
 */
import type { MCPPrompt, MCPResource, MCPServer, MCPTool } from '@mce/core';
import type { MCPCallRecord, MCPInteraction } from '../interaction.js';
import { valueText } from '../interaction.js';
import { Bm25Index, coverage, stem, tokenSet, tokens, tokensUncached } from './lexical.js';
import { contextWords, nearMiss } from './near-miss.js';
import { withErrorsByShape } from './error-shape.js';
import { valueUse } from './request-values.js';
import { unreportedCalls } from './unreported-call.js';
import { checkArguments } from './schema-validator.js';

export const FEATURE_NAMES = [
  'no_calls', // nothing was called
  'unknown_primitive', // share of calls to a primitive no available server offers
  'should_have_called', // no call although a primitive matches the request well
  'better_missed', // an uncalled primitive matches the request better than every called one
  'irrelevant_call', // share of calls whose primitive matches neither the request nor its own arguments' origin
  'duplicate_call', // share of calls repeating an earlier call (same primitive, same arguments)
  'calls_beyond_parts', // share of the calls beyond one per part of the request and one lookup (needless calls)
  'schema_invalid', // share of calls whose arguments fail the inputSchema
  'missing_required', // share of calls lacking a required argument
  'unknown_argument', // share of calls with an argument the schema does not declare
  'type_error', // share of calls with a wrong type / enum / format
  'ungrounded_value', // share of calls with a value found neither in the request, earlier turns nor results (of those the reply tells of)
  'argument_error_result', // an error result blames the arguments
  'error_result', // share of calls that returned an error
  'unrecovered_error', // an error with no later successful call of the same primitive
  'output_empty', // the user saw nothing
  'output_failure', // the reply says the task failed / could not be done
  'result_unused', // share of successful results the reply does not reflect
  'output_off_request', // the reply shares little with the request
  'error_unacknowledged', // a call failed for good and the reply does not say so
  'claim_numbers_unsupported', // numbers in the reply found nowhere in the request, arguments or results (2 = 1)
  'claim_words_unsupported', // share of the reply's content words found nowhere in the request, arguments or results
  'called_relevance_gap', // 1 − the best called primitive's relevance / the best available one's
  'weak_call', // share of calls no part of the request asks for (and not fed by an earlier result)
  'unasked_write', // a call no part of the request asks for changes something (post, create, write, delete …)
  'clause_unserved', // share of the request's parts whose best-matching primitive was not called
  'claim_clause_unsupported', // share of the reply's clauses whose words are mostly found nowhere in the context
  'part_uncovered', // share of the request's parts neither the calls' arguments nor the reply speak of
  'write_without_intent', // a call that changes something although the request asks to change nothing
  'write_intent_unmet', // the request asks to change something and no call that changes something succeeded
  'extra_call', // a tool call no part of the request asks for, beside a call that serves it
  'part_left_undone', // a part of the request (two or more words of its own) nothing spoke of, although calls were made
  'near_miss_value', // an argument value a small step from the user's words (a plural, one edit, a dropped separator)
  'not_top_match', // the primitive matching the request best scores over 1.5 times every called one
  'request_value_unused', // share of the values (ids, paths, numbers, quoted text) of the parts acted on no call sent or got back
  'call_unreported', // among two or more calls, one the reply says nothing of (a side effect or detour)
  'part_values_unused', // a part of the request names values of its own, none of which a call sent or got back
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
 * The text an inventory is cached under: everything its relevance documents and prompt checks are made of, not the
 * tools' whole schemas (serialising a GitHub catalog with them cost more than judging the session). Arguments are
 * checked against the schema of the interaction's own servers (toolOf), never a cached copy.
 */
function inventoryKey(servers: readonly MCPServer[]): string {
  const parts: string[] = [];
  for (const s of servers) {
    parts.push(`s\u0001${s.name}`);
    for (const t of s.tools ?? []) parts.push(`t\u0001${t.name}\u0001${t.description ?? ''}\u0001${schemaWords(t.inputSchema)}`);
    for (const r of s.resources ?? []) parts.push(`r\u0001${r.name ?? ''}\u0001${r.uri}\u0001${r.description ?? ''}`);
    for (const p of s.prompts ?? []) parts.push(`p\u0001${p.name}\u0001${p.description ?? ''}\u0001${JSON.stringify(p.arguments ?? [])}`);
  }
  return parts.join('\u0002');
}

/** The tool a primitive stands for in these servers (the interaction's own object, with its own schema). */
function toolOf(servers: readonly MCPServer[], p: Primitive): MCPTool | undefined {
  return servers.find((s) => s.name === p.server)?.tools?.find((t) => t.name === p.name) ?? p.tool;
}

/**
 * Every primitive the servers offer, with its relevance document (name counted twice: names carry the intent) and
 * their BM25 index; cached per server list (a session's inventory is judged many times).
 */
export function inventory(servers: readonly MCPServer[]): Inventory {
  const hit = inventoryCache.get(servers);
  if (hit) return hit;
  const key = inventoryKey(servers);
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

/**
 * An argument value not written as the user wrote it though a small step from their words (near-miss.ts): the whole
 * value when it is one identifier, else each of its chunks (split at spaces, and at `:` / `=` of a qualifier such as
 * `org:ziglang`) as free text.
 */
function missesNearly(lower: string, contextLower: string, requestWords: () => Set<string>): boolean {
  if (lower.length < 3 || containsPhrase(contextLower, lower)) return false;
  if (!/\s/.test(lower)) return nearMiss(lower, requestWords());
  for (const chunk of lower.split(/[\s:=]+/))
    if (chunk.length >= 3 && !containsPhrase(contextLower, chunk) && nearMiss(chunk, requestWords(), true)) return true;
  return false;
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
  const t = tokens(value).filter((w) => !QUERY_WORDS.has(w));
  if (t.length === 0) return !/[a-z0-9]/.test(lower) || tokens(value).length > 0; // punctuation, SQL keywords: structure
  // An identifier (path, id, name: no space) is grounded only if every word of it is; free text if most words are
  // (a word also counts when it begins a word of the context: "times out" for "timeout").
  if (!/\s/.test(lower)) return coverage(t, contextTokens) >= 0.999;
  let found = 0;
  for (const w of t) if (contextTokens.has(w) || (w.length >= 4 && beginsWord(contextLower, w))) found++;
  return found / t.length >= 0.6;
}

/** `prefix` begins a word of `hay`. */
function beginsWord(hay: string, prefix: string): boolean {
  for (let at = hay.indexOf(prefix); at >= 0; at = hay.indexOf(prefix, at + 1)) if (!isWordChar(hay[at - 1])) return true;
  return false;
}

/** Query-language words (SQL keywords and the like): the structure of a query argument, not a value to ground. */
const QUERY_WORDS = new Set(
  ('select from where order group by desc asc limit offset count avg sum min max having as join left inner on ' +
    'in is null like between distinct union case when else end insert into update delete value id table information schema')
    .split(' ')
    .map(stem),
);

/** The enum members a tool's schema declares: a value chosen among them is the schema's, not the user's, to ground. */
function enumValues(schema: Record<string, unknown> | undefined): Set<string> {
  const out = new Set<string>();
  for (const p of Object.values((schema?.properties ?? {}) as Record<string, { enum?: unknown }>))
    if (Array.isArray(p?.enum)) for (const v of p.enum) if (typeof v === 'string') out.add(v);
  return out;
}

/** Arguments the agent writes itself (an issue's body, a message's text): not values to find in the request. */
const COMPOSED_KEYS = /^(body|text|content|message|description|comment|commit_message|title)$/;

function composedValues(args: unknown): Set<string> {
  const out = new Set<string>();
  if (args && typeof args === 'object' && !Array.isArray(args))
    for (const [key, value] of Object.entries(args)) if (typeof value === 'string' && COMPOSED_KEYS.test(key)) out.add(value);
  return out;
}

/** A request split into its parts (sentences, "then …", "also …"): a part each call should serve. */
function requestParts(request: string): string[] {
  return request
    .split(/(?<=[.?!;])\s+|\s+(?:and then|then|also|afterwards|after that)\s+/i)
    .filter((part) => tokens(part).length >= 2);
}

// A tool named for a verb alone (a key-value store's `set`) or that makes something new (`generate_image`) changes things too.
const WRITE_TOOL =
  /post|create|write|insert|update|delete|add|edit|merge|fork|move|execute|fill|click|reply|comment|push|send|refund|cancel|book|pay|assign|archive|remove|upload|publish|submit|approve|close|generate|rename|clear|save|(?:^|[_-])set(?:$|[_-])/i;
/**
 * Verbs of a request that asks to change something (create, send, edit …) rather than to look something up, in the
 * words people use as well ("log a bug", "ship it", "cut a branch", "wipe the key", "spin up a project"). Not "the
 * open issues" (a state), "tell me", "let us know" (the reply is the answer) nor "what it is set to" (a question);
 * words that are nouns as often ("commit", "file", "cache") only before what they act on.
 */
const WRITE_INTENT =
  /\bopen (?:a|an|one|new|issue|ticket|bug|pr|pull request)\b|\b(?:log|file|raise) (?:a|an|one|new|the) (?:\w+ )?(?:bug|issue|ticket|incident|report)\b|\b(?:commit|cache) (?:it|this|these|them|that|the|my|all)\b|\b(?:spin|put|set) up\b|\b(?:tell|let|say|notify|inform)\b(?! (?:me|us)\b)|\b(create|make|post|add|write|put|save|change|switch|(?<!\b(?:is|are|was|were) )set|delete|remove|rename|move|close|comment|reply|react|type|fill|click|send|announce|share|update|merge|fork|insert|drop|note|mark|enter|refund|cancel|book|pay|assign|archive|upload|publish|submit|approve|ship|cut|bump|wipe|clear|flip|push|remember|store|draw|generate)\b/i;
const NUMBER = /\d+(?:[.,]\d+)*/g;

const ARGUMENT_BLAME = /\b(invalid|missing|required|argument|parameter|param|expected|must be|unknown field|not a valid|validation|schema)\b/i;
/** Words of a reply that owns a failure: an apology, an inability, the error named (a refusal, a limit, a timeout). */
const FAILURE_CUE =
  /\b(sorry|unable|couldn'?t|could not|cannot|can'?t|wasn'?t able|were not able|failed|failure|unfortunately|not able|no access|not possible|went wrong|error|errors|refused|rejected|denied|forbidden|not found|does(?:n'?t| not) exist|no such|timed out|rate[ -]?limit(?:ed)?|unavailable|didn'?t go through|did not go through|not permitted|try again|retry)\b/i;

function errorText(call: MCPCallRecord): string {
  if (call.error === undefined) return '';
  return call.error === true ? valueText(call.result) : call.error;
}

/**
 * The features of an interaction; `extracted` (hybrid mode) is added to the request's words for relevance. A call
 * whose result is an error by its shape counts as failed though the trace did not mark it.
 */
export function extractFeatures(interaction: MCPInteraction, extracted?: string): FeatureVector {
  return featuresOf(withErrorsByShape(interaction), extracted);
}

function featuresOf(interaction: MCPInteraction, extracted?: string): FeatureVector {
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
  if (n === 0) f[2] = sat(maxScore);

  // Grounding context grows with each call's result: later arguments may come from earlier results.
  // Only the user's own words (and earlier turns / results) ground a value: an LLM extraction (hybrid) may restate
  // what the agent invented, so it informs relevance but never grounding.
  let contextLower = `${interaction.request}\n${interaction.priorContext ?? ''}`.toLowerCase();
  const contextTokens = tokenSet(`${interaction.request}\n${interaction.priorContext ?? ''}`);
  const requestLower = contextLower;
  const requestTokens = new Set(contextTokens);

  let unknownCalls = 0, irrelevant = 0, duplicates = 0, invalid = 0, missing = 0, unknownArgs = 0, typeErr = 0;
  let errors = 0, unrecovered = 0, argBlame = 0, successes = 0, unused = 0;
  let maxCalledIntent = 0;
  /** Calls with a value found neither in the request, earlier turns nor results. */
  const ungroundedCalls = new Array<boolean>(n).fill(false);
  /** The values of each successful call's result, as text ('' for a failed call). */
  const resultTexts = new Array<string>(n).fill('');
  let nearMisses = 0;
  /** The request's words (a near miss is of the user's words), made when first needed. */
  let near: Set<string> | undefined;
  const nearRequest = () => (near ??= contextWords(interaction.request.toLowerCase()));
  const called = new Set<number>();
  const seen = new Set<string>();
  const outputTokens = tokenSet(interaction.output);
  const callIndex = new Array<number>(n).fill(-1);
  /** Words of what the calls did and returned (the called primitives' names, the successful results, keys too). */
  const doneWords = new Set<string>();
  /** The call's values are all grounded and it follows another call: it may be fed by an earlier result. */
  const callFed = new Array<boolean>(n).fill(false);

  for (let i = 0; i < n; i++) {
    const call = calls[i]!;
    const idx = findPrimitive(call, prims);
    const args = callArgs[i];
    const key = `${call.kind}:${call.name}:${call.uri ?? ''}:${valueText(args)}`;
    if (seen.has(key)) duplicates++;
    // A retry of a call that failed is not a repeat: only successful calls make the same call needless.
    if (call.error === undefined) seen.add(key);

    const vals = callValues[i]!;
    const composed = composedValues(args);
    const tool = idx >= 0 && prims[idx]!.kind === 'tool' ? toolOf(interaction.servers, prims[idx]!) : undefined;
    const enums = tool ? enumValues(tool.inputSchema) : undefined;
    let callUngrounded = 0;
    let callNearMiss = false;
    for (const v of vals) {
      if (typeof v === 'string' && (enums?.has(v) || composed.has(v))) continue;
      if (!grounded(v, contextLower, contextTokens)) callUngrounded++;
      // An identifier not written as the user wrote it, though a word-level check may find it.
      if (!callNearMiss && typeof v === 'string') callNearMiss = missesNearly(v.toLowerCase(), contextLower, nearRequest);
    }
    if (callNearMiss) nearMisses++;
    callIndex[i] = idx;
    // Fed by an earlier result: a value the request does not hold but a result does (an id looked up, then used).
    // A text the agent composes (a message quoting a result) is not fed: an id or path taken from a result is.
    callFed[i] = i > 0 && vals.some((v) => !(typeof v === 'string' && composed.has(v)) && !grounded(v, requestLower, requestTokens) && grounded(v, contextLower, contextTokens));
    ungroundedCalls[i] = callUngrounded > 0;

    if (idx < 0) {
      unknownCalls++;
    } else {
      called.add(idx);
      const p = prims[idx]!;
      for (const t of tokens(p.name)) doneWords.add(t);
      const score = Math.max(scores[idx] ?? 0, contextScores[idx] ?? 0);
      maxCalledIntent = Math.max(maxCalledIntent, intentScores[idx] ?? 0);
      // A call matching nothing in the request is needless unless its arguments come from the conversation.
      if (sat(score) < 0.3 && (vals.length === 0 || callUngrounded === vals.length)) irrelevant++;
      if (p.kind === 'tool') {
        const check = checkArguments(tool?.inputSchema, args);
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
        const resultText = resultValues.join(' ');
        resultTexts[i] = resultText;
        const rt = tokenSet(resultText);
        let shared = 0;
        for (const t of rt) if (outputTokens.has(t)) shared++;
        if (shared < Math.min(2, rt.size)) unused++;
        contextLower += `\n${res.toLowerCase()}`;
        for (const t of rt) contextTokens.add(t);
        for (const t of tokens(res)) doneWords.add(t);
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
    f[12] = argBlame > 0 ? 1 : 0;
    f[13] = errors / n;
    f[14] = unrecovered > 0 ? 1 : 0;
    f[17] = successes > 0 ? unused / successes : 0;
    f[32] = nearMisses > 0 ? 1 : 0;
  }
  f[15] = interaction.output.trim() ? 0 : 1;
  f[16] = FAILURE_CUE.test(interaction.output) ? 1 : 0;
  const rq = tokens(interaction.request);
  f[18] = interaction.output.trim() && rq.length ? 1 - coverage(rq, outputTokens) : 0;
  f[19] = unrecovered > 0 && !f[16] ? 1 : 0;
  claimFeatures(f, interaction.output, contextLower, contextTokens, callValues, doneWords);
  partFeatures(f, requestText, index, prims, callIndex, callFed, scores, maxScore);
  coverageFeatures(f, interaction, outputTokens, callValues, callIndex, prims, doneWords);
  if (n > 0) callTraceFeatures(f, interaction, { args: callArgs, values: callValues, results: resultTexts, ungrounded: ungroundedCalls });
  return f;
}

/** What each call sent and got back, as the main pass over the calls found it. */
interface CallTrace {
  args: readonly unknown[];
  values: ReadonlyArray<ReadonlyArray<string | number>>;
  /** The values of each successful call's result, as text ('' for a failed call). */
  results: readonly string[];
  /** Calls with a value found neither in the request, earlier turns nor results. */
  ungrounded: readonly boolean[];
}

/**
 * f[34]–f[36]: did the calls carry the request's values (the whole request's, each part's), does the reply speak of
 * each call; and f[11], the calls with an ungrounded value among those the reply speaks of: the invented arguments
 * of a call nobody asked for and the reply passes over are that call's fault (a needless call), not wrong arguments
 * for the task.
 */
function callTraceFeatures(f: FeatureVector, interaction: MCPInteraction, trace: CallTrace): void {
  const text = `${trace.values.flat().join('\n')}\n${trace.results.join('\n')}`;
  // Its words only for a quoted value, tokenized uncached: the text is this interaction's own.
  let words: Set<string> | undefined;
  const carried = { lower: text.toLowerCase(), words: () => (words ??= new Set(tokensUncached(text))) };
  const use = valueUse(interaction.request, requestParts(interaction.request), carried);
  f[34] = use.unused;
  f[36] = use.partUndone;
  const n = interaction.calls.length;
  // A text the agent composed (a message's body) is not what the reply would name the call by: it often is the reply.
  const unreported =
    n < 2
      ? []
      : unreportedCalls(
          interaction.calls.map((call, i) => {
            const composed = composedValues(trace.args[i]);
            const named = trace.values[i]!.filter((v) => !(typeof v === 'string' && composed.has(v)));
            return { informs: call.kind !== 'tool', words: new Set(tokensUncached(`${call.name} ${named.join(' ')} ${trace.results[i]}`)) };
          }),
          interaction.output,
        );
  f[35] = unreported.length > 0 ? 1 : 0;
  f[11] = trace.ungrounded.filter((u, i) => u && !unreported.includes(i)).length / n;
}

/**
 * f[27]–f[29]: is every part of the request spoken of (by the reply, the calls' arguments, what the calls did or
 * returned), and do the calls change something exactly when asked to.
 */
function coverageFeatures(
  f: FeatureVector,
  interaction: MCPInteraction,
  outputTokens: ReadonlySet<string>,
  callValues: ReadonlyArray<ReadonlyArray<string | number>>,
  callIndex: readonly number[],
  prims: readonly Primitive[],
  doneWords: Set<string>,
): void {
  const spoken = doneWords; // its last use: extended in place rather than copied
  for (const t of outputTokens) spoken.add(t);
  for (const t of tokens(callValues.flat().join(' '))) spoken.add(t);
  const parts = requestParts(interaction.request);
  const partTokens = parts.map((part) => tokens(part));
  let uncovered = 0;
  let undone = 0;
  partTokens.forEach((own, k) => {
    // A part is judged on its own words: those another part shares ("the ziglang org" … "open ziglang.org") say
    // nothing of whether this one was done.
    const others = new Set(partTokens.flatMap((t, j) => (j === k ? [] : t)));
    const distinct = own.filter((t) => !others.has(t));
    if (coverage(distinct.length ? distinct : own, spoken) >= 0.34) return;
    uncovered++;
    // A part of one word of its own ("use the orders table") adds a detail to another part, not a task of its own.
    // A request of one part counts too: calls whose arguments, results and reply speak of none of its words did
    // something else (kept so after a held-out look: limited to requests of several parts, it did no better on the
    // training split and worse on the held-out one).
    if (distinct.length >= 2) undone++;
  });
  f[27] = parts.length ? uncovered / parts.length : 0;
  f[31] = undone > 0 && interaction.calls.length > 0 ? 1 : 0;
  const writes = callIndex.map((idx) => idx >= 0 && WRITE_TOOL.test(prims[idx]!.name));
  const wantsWrite = WRITE_INTENT.test(interaction.request);
  f[28] = !wantsWrite && writes.some(Boolean) ? 1 : 0;
  f[29] = wantsWrite && !writes.some((w, c) => w && interaction.calls[c]!.error === undefined) ? 1 : 0;
}

/** `number` occurs in `hay` with no digit right before or after it (inside "v2.3.1" or "#87" it counts). */
function containsNumber(hay: string, number: string): boolean {
  const isDigit = (ch: string | undefined) => ch !== undefined && ch >= '0' && ch <= '9';
  for (let at = hay.indexOf(number); at >= 0; at = hay.indexOf(number, at + 1))
    if (!isDigit(hay[at - 1]) && !isDigit(hay[at + number.length])) return true;
  return false;
}

/** f[20], f[21]: what the reply states that nothing the user said or a call returned supports. */
function claimFeatures(
  f: FeatureVector,
  output: string,
  contextLower: string,
  contextTokens: Set<string>,
  callValues: ReadonlyArray<ReadonlyArray<string | number>>,
  doneWords: ReadonlySet<string>,
): void {
  const argumentText = callValues.flat().join(' ').toLowerCase();
  const known = `${contextLower}\n${argumentText}`;
  let numbers = 0;
  // Single digits are mostly counts of what a result listed; longer numbers are values a result must hold.
  for (const number of output.match(NUMBER) ?? []) if (number.replace(/\D/g, '').length >= 2 && !containsNumber(known, number)) numbers++;
  f[20] = Math.min(numbers, 2) / 2;
  const words = tokens(output).filter((w) => w.length >= 4 && !/^\d/.test(w));
  const argumentTokens = tokenSet(argumentText);
  // What the calls did supports the reply's words for it ("read", "listed" after read_file, list_directory).
  const isUnsupported = (w: string) => !contextTokens.has(w) && !argumentTokens.has(w) && !doneWords.has(w);
  let novel = 0;
  for (const w of words) if (isUnsupported(w)) novel++;
  f[21] = words.length ? novel / words.length : 0;
  // Clause by clause: an invented finding ("and it was fixed in 0.12.0") is a clause of words nothing supports.
  const clauses = output.split(/[.;:!?]\s+|,\s+|\s+and\s+|\s+but\s+/i);
  let judged = 0;
  let unsupported = 0;
  for (const clause of clauses) {
    const cw = tokensUncached(clause).filter((w) => w.length >= 3 && !/^\d$/.test(w));
    if (cw.length < 2) continue;
    judged++;
    let fresh = 0;
    for (const w of cw) if (isUnsupported(w)) fresh++;
    if (fresh / cw.length >= 0.75) unsupported++;
  }
  f[26] = judged ? unsupported / judged : 0;
}

/** The BM25 score below which a part (or a request) points to no primitive clearly. */
const VAGUE_PART = 1;

/** f[22]–f[25]: do the calls answer the parts of the request, and does any call answer none of them. */
function partFeatures(
  f: FeatureVector,
  requestText: string,
  index: Bm25Index,
  prims: readonly Primitive[],
  callIndex: readonly number[],
  callFed: readonly boolean[],
  scores: Float64Array,
  maxScore: number,
): void {
  const n = callIndex.length;
  const called = callIndex.filter((i) => i >= 0);
  const bestCalled = Math.max(0, ...called.map((i) => scores[i] ?? 0));
  if (n > 0 && maxScore > 0) f[22] = 1 - bestCalled / maxScore;
  f[33] = n > 0 && maxScore > 1.5 * bestCalled && maxScore - bestCalled >= VAGUE_PART ? 1 : 0;
  const parts = requestParts(requestText);
  if (!parts.length) parts.push(requestText);
  const asked = new Array<boolean>(n).fill(false);
  // Each part also claims the called primitive that matches it best (or, matching none, a call no part has claimed):
  // a request of two parts served by two calls has no call to spare, however weakly a call's words match its part.
  const claimed = new Array<boolean>(n).fill(false);
  /** The call matches some part at least a quarter as well as its best primitive: a look-up for it, maybe. */
  const related = new Array<boolean>(n).fill(false);
  let unclaimedParts = 0;
  let unserved = 0;
  for (const part of parts) {
    const partScores = index.score(tokens(part));
    let claim = -1;
    callIndex.forEach((idx, c) => {
      if (idx >= 0 && !claimed[c] && (partScores[idx] ?? 0) > 0 && (claim < 0 || partScores[idx]! > partScores[callIndex[claim]!]!)) claim = c;
    });
    if (claim >= 0) claimed[claim] = true;
    else unclaimedParts++;
    let best = -1;
    for (let i = 0; i < partScores.length; i++) if (best < 0 || partScores[i]! > partScores[best]!) best = i;
    const top = best >= 0 ? partScores[best]! : 0;
    // A part whose words point to no primitive clearly (a conversational "can you pull up …") is taken to ask for
    // the call it claimed, however weakly that matches.
    if (top < VAGUE_PART) {
      if (claim >= 0) asked[claim] = true;
      continue;
    }
    let served = false;
    callIndex.forEach((idx, c) => {
      if (idx >= 0 && (partScores[idx] ?? 0) >= 0.25 * top) related[c] = true;
      if (idx >= 0 && (partScores[idx] ?? 0) >= 0.75 * top) {
        asked[c] = true;
        served = true;
      }
    });
    if (!served) unserved++;
  }
  f[25] = unserved / parts.length;
  if (n === 0) return;
  // One call beyond the parts is allowed: a lookup before acting on it (search, then create) is one part.
  f[6] = Math.max(0, n - parts.length - 1) / n;
  let weak = 0;
  let write = 0;
  let spare = 0;
  let lookups = 0;
  for (let c = 0; c < n; c++) {
    // A resource read no part names (the contributing guide read before opening an issue) informs the agent, and
    // one read-only call related to a part is a look-up before acting on it (search the tracker, then open an
    // issue); any other call beyond the parts is spare.
    const idx = callIndex[c]!;
    const resource = idx >= 0 && prims[idx]!.kind === 'resource';
    const lookup = related[c] && idx >= 0 && !WRITE_TOOL.test(prims[idx]!.name) && lookups++ === 0;
    if (!claimed[c] && !callFed[c] && !asked[c] && !resource && !lookup) {
      if (unclaimedParts > 0) unclaimedParts--;
      else spare++;
    }
    if (asked[c] || callFed[c]) continue;
    weak++;
    if (idx >= 0 && WRITE_TOOL.test(prims[idx]!.name)) write = 1;
  }
  f[23] = weak / n;
  f[24] = write;
  f[30] = spare > 0 && asked.some(Boolean) ? 1 : 0;
}
