/**
 * The training split's procedure: each failure class made from a good scenario by one generic rule, the same rule
 * for every scenario (no per-scenario choice). Deterministic.
 */
const words = (text) => new Set(String(text).toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length >= 3));
const WRITE = /post|create|write|insert|update|delete|add|fill|click|comment|reply|move|merge|fork|execute|edit/;
const TEXT_KEYS = /text|body|content|message/;

/** A fixed pick among candidates, by the scenario's id (a rule, not a choice: the same id always picks the same). */
function pick(candidates, id) {
  let h = 0;
  for (const ch of id) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return candidates[h % candidates.length];
}

function toolsOf(catalogs, servers) {
  return servers.flatMap((s) => catalogs[s].tools.map((tool) => ({ server: s, tool })));
}

/** Arguments for a tool from its schema: the right call's values under the same name, else a plain value of the type. */
function fillArguments(tool, scenario) {
  const schema = tool.inputSchema ?? {};
  const args = {};
  for (const key of schema.required ?? []) {
    const type = schema.properties?.[key]?.type;
    if (scenario.arguments[key] !== undefined) args[key] = scenario.arguments[key];
    else if (type === 'number') args[key] = 1;
    else if (type === 'array') args[key] = [];
    else if (type === 'object') args[key] = {};
    else if (type === 'boolean') args[key] = false;
    else args[key] = TEXT_KEYS.test(key) ? scenario.output : Object.values(scenario.arguments).find((v) => typeof v === 'string') ?? 'general';
  }
  return args;
}

/** wrong_tool: an offered tool sharing the fewest words with the request (ties: pick by the scenario's id). */
function wrongTool(scenario, catalogs) {
  const request = words(scenario.request);
  const others = toolsOf(catalogs, scenario.servers).filter(({ tool }) => tool.name !== scenario.tool);
  const shared = others.map(({ tool }) => [...words(`${tool.name.replace(/_/g, ' ')} ${tool.description}`)].filter((w) => request.has(w)).length);
  const fewest = Math.min(...shared);
  const best = pick(others.filter((_, i) => shared[i] === fewest), scenario.id);
  return {
    calls: [{ server: best.server, kind: 'tool', name: best.tool.name, arguments: fillArguments(best.tool, scenario), result: { ok: true } }],
    output: 'Done, that went through.',
  };
}

/** needless_call: the right call, then a write tool of another offered server (picked by the scenario's id), unasked. */
function needlessCall(scenario, catalogs) {
  const writes = toolsOf(catalogs, scenario.servers).filter(({ server, tool }) => server !== scenario.server && WRITE.test(tool.name));
  const extra = pick(writes, scenario.id);
  return {
    calls: [rightCall(scenario), { server: extra.server, kind: 'tool', name: extra.tool.name, arguments: fillArguments(extra.tool, scenario), result: { ok: true } }],
    output: scenario.output,
  };
}

/** A value of another JSON type than the schema's (a number spelt out, a list for a string …). */
function mistyped(value) {
  if (typeof value === 'number') return String(value).replace(/\d+/, (n) => `${n} items`);
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.join(',');
  return JSON.stringify(value);
}

/**
 * invalid_arguments, one of three rules picked by the scenario's id: the first required argument left out (no
 * required one: the first argument renamed), the first argument given the wrong JSON type, or an undeclared
 * argument added.
 */
function invalidArguments(scenario, catalogs) {
  const tool = catalogs[scenario.server].tools.find((t) => t.name === scenario.tool);
  const args = { ...scenario.arguments };
  const required = (tool.inputSchema.required ?? []).find((k) => k in args);
  const variant = pick(['omit', 'mistype', 'extra'], `${scenario.id}:invalid`);
  const [first] = Object.keys(args);
  let error;
  if (variant === 'mistype' && first) {
    args[first] = mistyped(args[first]);
    error = `Invalid arguments: "${first}" has the wrong type`;
  } else if (variant === 'extra') {
    args.options = { verbose: true };
    error = 'Invalid arguments: unknown argument "options"';
  } else if (required) {
    delete args[required];
    error = `Invalid arguments: "${required}" is required`;
  } else {
    const [key] = Object.keys(args);
    const renamed = key ? `${key}_value` : 'count';
    if (key) delete args[key];
    args[renamed] = key ? scenario.arguments[key] : 'all';
    error = `Invalid arguments: unknown argument "${renamed}"`;
  }
  return {
    calls: [{ server: scenario.server, kind: 'tool', name: scenario.tool, arguments: args, error }],
    output: "Sorry, I couldn't do that: the tool rejected the request.",
  };
}

/**
 * hallucinated_arguments: in the first string argument sharing a word with the request, that word becomes
 * `<word>-old`; with no such argument, the schema's first string property gets an invented value.
 */
function hallucinatedArguments(scenario, catalogs) {
  const request = words(scenario.request);
  const args = structuredClone(scenario.arguments);
  for (const [key, value] of Object.entries(args)) {
    if (typeof value !== 'string') continue;
    const word = [...words(value)].find((w) => request.has(w));
    if (!word) continue;
    args[key] = value.replace(new RegExp(word, 'i'), `${word}-old`);
    return { calls: [{ ...rightCall(scenario), arguments: args }], output: scenario.output };
  }
  const tool = catalogs[scenario.server].tools.find((t) => t.name === scenario.tool);
  const key = Object.entries(tool.inputSchema.properties ?? {}).find(([, p]) => p.type === 'string')?.[0];
  if (!key) throw new Error(`${scenario.id}: no argument to change`);
  return { calls: [{ ...rightCall(scenario), arguments: { ...args, [key]: 'dXNlcjpVMDYxTkZUVDI=' } }], output: scenario.output };
}

/**
 * Errors a server returns for a right call with right arguments (the service down or busy, the object gone or
 * locked, the token short of a permission); one picked per scenario by its id.
 */
const SERVER_ERRORS = [
  'Error: upstream service returned 503 Service Unavailable',
  'Error: request timed out after 30000 ms',
  'Rate limit exceeded: retry after 60 seconds',
  'Error: 403 Forbidden: the token lacks the permission for this action',
  'Error: 409 Conflict: the resource was changed by another request',
  'Error: connection reset by peer',
];

/** ignored_error: the call fails (SERVER_ERRORS); the reply is the good one. */
function ignoredError(scenario) {
  const { result: _result, ...call } = rightCall(scenario);
  return { calls: [{ ...call, error: pick(SERVER_ERRORS, `${scenario.id}:error`) }], output: scenario.output };
}

/** Findings no result states, one picked per scenario by its id. */
const INVENTED = [
  'It also flagged 3 warnings that need your attention.',
  'The release team changed it last Friday.',
  'Two reviewers have already signed off on it.',
  'This also fixes the timeout reported last week.',
  'The staging copy shows the same, so nothing else is needed.',
];

/**
 * unsupported_claim: every number of two or more digits in the reply raised by 7; a reply without one gets an
 * invented finding.
 */
function unsupportedClaim(scenario) {
  const changed = scenario.output.replace(/\d{2,}/g, (n) => String(Number(n) + 7));
  const output = changed !== scenario.output ? changed : `${scenario.output} ${pick(INVENTED, `${scenario.id}:claim`)}`;
  return { calls: [rightCall(scenario)], output };
}

/** One small step from a word: its plural made singular or the singular plural; a final digit moved by one. */
function nearMissOf(word) {
  if (/\d$/.test(word)) return word.replace(/\d$/, (d) => String((Number(d) + 1) % 10));
  return word.endsWith('s') ? word.slice(0, -1) : `${word}s`;
}

/**
 * hallucinated_arguments, near miss: in the first string argument holding a word of four or more characters that
 * quotes the request, that word one small step off (nearMissOf); null when no argument quotes the request so.
 * The result and the reply are the good ones.
 */
function nearMissValue(scenario) {
  const request = scenario.request.toLowerCase();
  const args = structuredClone(scenario.arguments);
  for (const [key, value] of Object.entries(args)) {
    if (typeof value !== 'string') continue;
    const word = value.split(/[^A-Za-z0-9]+/).find((w) => w.length >= 4 && request.includes(w.toLowerCase()));
    if (!word) continue;
    args[key] = value.replace(word, nearMissOf(word));
    return { calls: [{ ...rightCall(scenario), arguments: args }], output: scenario.output };
  }
  return null;
}

export function rightCall(scenario) {
  return { server: scenario.server, kind: 'tool', name: scenario.tool, arguments: scenario.arguments, result: scenario.result };
}

export const RULES = {
  wrong_tool: wrongTool,
  missing_call: (scenario) => ({ calls: [], output: scenario.output }),
  needless_call: needlessCall,
  invalid_arguments: invalidArguments,
  hallucinated_arguments: hallucinatedArguments,
  ignored_error: ignoredError,
  unsupported_claim: unsupportedClaim,
};

/**
 * Second rules, each making one more degraded twin of its class per scenario (its id ends in the suffix): the hard
 * case of the class, a value one step from the user's.
 */
export const MORE_RULES = [['hallucinated_arguments', 'near_miss', nearMissValue]];
