/**
 * The labelled MCP set's interactions, made from the scenarios: the training split by the generic rules of
 * degrade-by-rule.mjs, the held-out splits from the hand-written twins of heldout-scenarios.mjs and fresh-scenarios.mjs.
 * Deterministic.
 */
import { FRESH_SCENARIOS } from './fresh-scenarios.mjs';
import { HELDOUT_SCENARIOS } from './heldout-scenarios.mjs';
import { CLASS_LABELS } from './labels.mjs';
import { MORE_RULES, RULES, rightCall } from './degrade-by-rule.mjs';
import { TRAIN_PAIRS, TRAIN_SCENARIOS } from './train-scenarios.mjs';

const call = ([server, name, args, result]) => ({ server, kind: 'tool', name, arguments: args, result });
const item = (split, id, cls, twin, servers, request, calls, output) => ({
  id, split, class: cls, twin, servers, turns: [{ request, calls, output, labels: CLASS_LABELS[cls] }],
});
const union = (...lists) => [...new Set(lists.flat())];
const joinRequests = (a, b) => `${a.replace(/[.?!]?$/, '.')} ${b.charAt(0).toUpperCase()}${b.slice(1)}`;

/** Verbs asking to look something up, which "I'd like to see" says as well. */
const LOOKUP_VERB = /^(list|show|find|search|read)\b\s*(me\s+)?/i;
const QUESTION = /^(what|which|who|how|is|are|when|where)\b/i;
const ACTION_VERB = /^(open|comment|create|close|write|rename|delete|post|reply|add|set|take|type|click|move|update|send)\b/i;

/**
 * The scenario asked casually, by rule: a look-up's leading verb becomes "I'd like to see", a question gets
 * "hey, quick question:" before it, a request to act "hey, could you please" (its verb kept: the action must stay
 * asked for), any other "hey, quick one:". The call, result and reply stay; the words that point to the right tool are fewer or diluted, as in
 * conversation. Its id ends in `~casual`.
 */
function casually(s) {
  // A first word in capitals (README.md, GitHub) keeps them.
  const lowerFirst = (t) => (/^[A-Z][a-z]+\b/.test(t) && !/^[A-Z][a-z]+[A-Z]/.test(t) ? `${t.charAt(0).toLowerCase()}${t.slice(1)}` : t);
  let request;
  if (LOOKUP_VERB.test(s.request)) request = `I'd like to see ${lowerFirst(s.request.replace(LOOKUP_VERB, ''))}`;
  else if (QUESTION.test(s.request)) request = `hey, quick question: ${lowerFirst(s.request)}`;
  else if (ACTION_VERB.test(s.request)) request = `hey, could you please ${lowerFirst(s.request)}`;
  else request = `hey, quick one: ${lowerFirst(s.request)}`;
  return { ...s, id: `${s.id}~casual`, request };
}

/** `catalogs`: the servers of catalogs.json by name. */
export function trainItems(catalogs) {
  const scenarios = TRAIN_SCENARIOS.map(([id, servers, request, server, tool, args, result, output]) => ({
    id, servers, request, server, tool, arguments: args, result, output,
  }));
  const out = [];
  for (const s of [...scenarios, ...scenarios.map(casually)]) {
    const good = `t-${s.id}-good`;
    out.push(item('train', good, 'good', null, s.servers, s.request, [rightCall(s)], s.output));
    for (const [cls, rule] of Object.entries(RULES)) {
      const { calls, output } = rule(s, catalogs);
      out.push(item('train', `t-${s.id}-${cls}`, cls, good, s.servers, s.request, calls, output));
    }
    for (const [cls, suffix, rule] of MORE_RULES) {
      const made = rule(s, catalogs);
      if (made) out.push(item('train', `t-${s.id}-${cls}-${suffix}`, cls, good, s.servers, s.request, made.calls, made.output));
    }
  }
  const byId = new Map(scenarios.map((s) => [s.id, s]));
  for (const [a, b] of TRAIN_PAIRS.map((pair) => pair.map((id) => byId.get(id)))) {
    const servers = union(a.servers, b.servers);
    const request = joinRequests(a.request, b.request);
    const good = `t-${a.id}+${b.id}-good`;
    out.push(item('train', good, 'good', null, servers, request, [rightCall(a), rightCall(b)], `${a.output} ${b.output}`));
    out.push(item('train', `t-${a.id}+${b.id}-partial_completion`, 'partial_completion', good, servers, request, [rightCall(a)], a.output));
  }
  return out;
}

/** The held-out split: HELDOUT_SCENARIOS, every twin written by hand. */
export const heldoutItems = () => handWrittenItems('heldout', HELDOUT_SCENARIOS);

/** The fresh held-out split: FRESH_SCENARIOS, written by hand over servers no other split uses, blind to the model. */
export const freshItems = () => handWrittenItems('fresh', FRESH_SCENARIOS);

/** A good interaction per scenario, its seven hand-written twins, and the scenario with its second request (done, and half done). */
function handWrittenItems(split, scenarios) {
  const out = [];
  for (const h of scenarios) {
    const good = `${h.id}-good`;
    const right = call(h.call);
    const twin = (cls, calls, output) => out.push(item(split, `${h.id}-${cls}`, cls, good, h.servers, h.request, calls, output));
    out.push(item(split, good, 'good', null, h.servers, h.request, [right], h.output));
    twin('wrong_tool', [call(h.wrong.call)], h.wrong.output);
    twin('missing_call', [], h.missing);
    twin('needless_call', [right, call(h.needless.call)], h.needless.output ?? h.output);
    twin('invalid_arguments', [{ ...right, arguments: h.invalid.args, result: undefined, error: h.invalid.error }], h.invalid.output);
    twin('hallucinated_arguments', [{ ...right, arguments: h.halluc.args, result: h.halluc.result }], h.halluc.output);
    twin('ignored_error', [{ ...right, result: undefined, error: h.error.error }], h.error.output ?? h.output);
    twin('unsupported_claim', [right], h.unsupported);
    const second = call(h.second.call);
    const request = joinRequests(h.request, h.second.request);
    const pairGood = `${h.id}+second-good`;
    out.push(item(split, pairGood, 'good', null, h.servers, request, [right, second], `${h.output} ${h.second.output}`));
    out.push(item(split, `${h.id}+second-partial_completion`, 'partial_completion', pairGood, h.servers, request, [right], h.output));
  }
  return out;
}

/** The items as their JSON Lines file holds them (a call without result has no `result` key). */
export function jsonLines(items) {
  for (const i of items) for (const c of i.turns.flatMap((t) => t.calls)) if (c.result === undefined) delete c.result;
  return items.map((i) => JSON.stringify(i)).join('\n') + '\n';
}
