/**
 * `mce_config.yaml`: engine, cache, store, metrics per ontology scope, per-metric options, the worker and receiver sections.
 * Validated against the published JSON Schema (`schema/mce_config.schema.json`); every error names the file, the
 * line and the field.
 */
import { MceError } from '@mce/core';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { yaml } from '../lazy.js';
import { parseStoreUrl } from '@mce/store';
import { readThresholds, type Threshold } from './thresholds.js';
import type { ApiKey } from '../api/auth.js';
import { ONTOLOGY_LEVELS, type MetricOptionsError, type MetricSelectionError, type OntologyLevel, type StrategyName } from '@mce/core';

const require = createRequire(import.meta.url);
export const MCE_CONFIG_SCHEMA = require('../../schema/mce_config.schema.json') as Record<string, unknown>;

export type MetricSelection = Partial<Record<OntologyLevel, string[]>>;
export type MetricOptions = Record<string, unknown>;

export interface MceConfig {
  /** The file it came from, when it came from one (as named: relative to `baseDir`). */
  source?: string;
  /** The directory a relative `source` is relative to (the working directory it was loaded in); default process.cwd(). */
  baseDir?: string;
  engine: { maxWorkers?: number; strategy?: StrategyName; recursive: boolean; metricTimeoutMs?: number };
  cache: { path: string | null; read: boolean; write: boolean; enabled: boolean };
  store: { url?: string };
  /** `mce serve`: the API keys (`api.keys`: name, hash, scopes), with those of MCE_API_KEYS / MCE_API_TOKEN added by serve. */
  api: { keys: ApiKey[] };
  /** Provider plugins to load (package names or paths relative to the config file). */
  providers: string[];
  /** Where the file wrote each `providers` entry (for errors about loading it). */
  providerLines?: (number | undefined)[];
  /** Load installed packages that declare an `mce.provider` (`provider_discovery`, MCE_PROVIDER_DISCOVERY; default true). */
  discoverProviders: boolean;
  /** Metrics per scope; undefined = the default metric set. */
  metrics?: MetricSelection;
  /** Where the file wrote each selected metric: `Level:Name` → line (for errors about the selection). */
  metricLines?: Record<string, number>;
  /** Options per metric name (from `metric_options` and inline list entries). */
  metricOptions: Record<string, MetricOptions>;
  /**
   * Where the file wrote each metric's options: `name` (the entry) and `name\u0000option` → field path and line
   * (for errors about the options).
   */
  optionPlaces?: Record<string, ConfigPlace>;
  /** The raw `worker:` section (snake_case), interpreted by the worker package. */
  worker: Record<string, unknown>;
  /** What `mce check` requires of the results (`thresholds:`), in the file's order within each level. */
  thresholds: Threshold[];
  /** The raw `receiver:` section (snake_case, checked by the schema), interpreted by receiver/settings.ts. */
  receiver: Record<string, unknown>;
  /**
   * The sections a provider package reads (`sdk_metrics:`, by @mce/provider-sdk), raw as written: each provider
   * module with a `configure` export is given them when it loads and checks what it reads.
   */
  providerSections?: Record<string, unknown>;
  /** Where the file wrote each value of those sections: `sdk_metrics.0.expression` → line. */
  providerSectionLines?: Record<string, number>;
}

/** The top-level sections of mce_config.yaml that provider packages read. */
export const PROVIDER_SECTIONS = ['sdk_metrics'] as const;

/** Where a value is written in a configuration file. */
export interface ConfigPlace {
  field: string;
  line?: number;
}

export class ConfigError extends MceError {
  readonly kind = 'bad-input' as const;
  constructor(
    readonly file: string,
    readonly problems: { line?: number; field: string; message: string }[],
  ) {
    super(
      `${file}: invalid configuration\n` +
        problems.map((p) => `  ${file}${p.line ? `:${p.line}` : ''}: ${p.field}: ${p.message}`).join('\n'),
    );
    this.name = 'ConfigError';
  }
}

export function defaultMceConfig(): MceConfig {
  return {
    engine: { recursive: true },
    cache: { path: null, read: true, write: true, enabled: true },
    store: {},
    api: { keys: [] },
    providers: [],
    discoverProviders: true,
    metricOptions: {},
    worker: {},
    thresholds: [],
    receiver: {},
    providerSections: {},
  };
}

let compiled: ValidateFunction | undefined;
/** The schema's validator, compiled when a file is first read (ajv is the largest module a quick command would load). */
function validator(): ValidateFunction {
  if (!compiled) {
    const { Ajv } = require('ajv') as typeof import('ajv');
    compiled = new Ajv({ allErrors: true, strict: false }).compile(MCE_CONFIG_SCHEMA);
  }
  return compiled;
}

function describe(error: ErrorObject): string {
  if (error.keyword === 'additionalProperties') return `unknown field "${String(error.params.additionalProperty)}"`;
  if (error.keyword === 'enum') return `must be one of ${(error.params.allowedValues as unknown[]).join(', ')}`;
  return error.message ?? 'is invalid';
}

/** Parse and validate the text of an mce_config.yaml. */
export function parseMceConfig(text: string, file = 'mce_config.yaml'): MceConfig {
  const { LineCounter, parseDocument, isMap, isNode, isScalar } = yaml();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const lineAt = (node: unknown) => (isNode(node) && node.range ? lineCounter.linePos(node.range[0]).line : undefined);
  /** The line of `key` itself in the mapping at `path` (a key's value may start on a later line). */
  const keyLineOf: KeyLineOf = (path, key) => {
    const parent = doc.getIn(path, true);
    return isMap(parent) ? lineAt(parent.items.find((pair) => isScalar(pair.key) && pair.key.value === key)?.key) : undefined;
  };
  if (doc.errors.length > 0) {
    throw new ConfigError(
      file,
      doc.errors.map((e) => ({ line: lineCounter.linePos(e.pos[0]).line, field: '(yaml)', message: e.message.split('\n')[0] ?? e.message })),
    );
  }
  let raw: Record<string, unknown>;
  try {
    raw = (doc.toJS() ?? {}) as Record<string, unknown>;
  } catch (error) {
    // e.g. aliases expanded past the YAML library's limit (a "billion laughs" file)
    throw new ConfigError(file, [{ line: 1, field: '(yaml)', message: (error as Error).message.split('\n')[0] ?? 'cannot read' }]);
  }
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(file, [{ line: 1, field: '(root)', message: 'must be a mapping' }]);
  }
  const validate = validator();
  if (!validate(raw)) {
    // oneOf errors repeat each branch's complaint; keep the most specific per path.
    const seen = new Set<string>();
    const problems = (validate.errors ?? [])
      .filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'allOf')
      .map((e) => {
        const path = e.instancePath.split('/').slice(1).map((p) => (/^\d+$/.test(p) ? Number(p) : p));
        const field = e.keyword === 'additionalProperties'
          ? [...path, String(e.params.additionalProperty)].join('.')
          : path.join('.') || '(root)';
        // An unknown key is reported at the key itself, anything else at its value.
        const line =
          e.keyword === 'additionalProperties' ? keyLineOf(path, String(e.params.additionalProperty)) : lineAt(doc.getIn(path, true));
        return { line, field, message: describe(e) };
      })
      .filter((p) => (seen.has(p.field) ? false : (seen.add(p.field), true)));
    throw new ConfigError(file, problems);
  }
  const lineOf = (path: readonly (string | number)[]) => lineAt(doc.getIn(path, true));
  checkInlineOptions(raw, lineOf, file);
  const { thresholds, problems } = readThresholds(raw.thresholds, keyLineOf);
  if (problems.length > 0) throw new ConfigError(file, problems);
  const config = fromRaw(raw, file);
  config.thresholds = thresholds;
  if (config.store.url !== undefined) {
    try {
      parseStoreUrl(config.store.url);
    } catch (error) {
      throw new ConfigError(file, [{ line: lineOf(['store', 'url']), field: 'store.url', message: (error as Error).message }]);
    }
  }
  const keyNames = config.api.keys.map((k) => k.name);
  const twice = keyNames.findIndex((name, i) => keyNames.indexOf(name) !== i);
  if (twice >= 0) throw new ConfigError(file, [{ line: lineOf(['api', 'keys', twice]), field: `api.keys.${twice}.name`, message: `key name ${keyNames[twice]} is given twice` }]);
  if (config.metrics) config.metricLines = metricLines(lineOf, config.metrics);
  config.optionPlaces = optionPlaces(lineOf, keyLineOf, raw);
  if (config.providers.length > 0) config.providerLines = config.providers.map((_, i) => lineOf(['providers', i]));
  for (const section of PROVIDER_SECTIONS) {
    if (raw[section] === undefined) continue;
    config.providerSections = { ...config.providerSections, [section]: raw[section] };
    config.providerSectionLines = { ...config.providerSectionLines, ...valueLines([section], raw[section], lineOf, keyLineOf) };
  }
  return config;
}

/** The line of every value under `path` (a mapping's values at their keys' lines), by dotted path. */
function valueLines(path: (string | number)[], value: unknown, lineOf: LineOf, keyLineOf: KeyLineOf): Record<string, number> {
  const lines: Record<string, number> = {};
  const visit = (at: (string | number)[], node: unknown, line: number | undefined) => {
    if (line !== undefined) lines[at.join('.')] = line;
    if (Array.isArray(node)) node.forEach((item, i) => visit([...at, i], item, lineOf([...at, i])));
    else if (node !== null && typeof node === 'object') {
      for (const [key, item] of Object.entries(node)) visit([...at, key], item, keyLineOf(at, key) ?? lineOf([...at, key]));
    }
  };
  visit(path, value, lineOf(path));
  return lines;
}

/** Problems a provider found in the section it reads, at their fields' lines (the nearest written one above). */
export function providerSectionError(config: MceConfig, problems: readonly { path: readonly (string | number)[]; message: string }[]): ConfigError {
  const lines = config.providerSectionLines ?? {};
  const lineOf = (path: readonly (string | number)[]) => {
    for (let n = path.length; n > 0; n--) {
      const line = lines[path.slice(0, n).join('.')];
      if (line !== undefined) return line;
    }
    return undefined;
  };
  return new ConfigError(
    config.source ?? 'mce_config.yaml',
    problems.map((p) => ({ line: lineOf(p.path), field: p.path.join('.'), message: p.message })),
  );
}

/** Where the file wrote each metric's options: under `metric_options`, then inline in `metrics` (which wins). */
function optionPlaces(lineOf: LineOf, keyLineOf: KeyLineOf, raw: Record<string, unknown>): Record<string, ConfigPlace> {
  const places: Record<string, ConfigPlace> = {};
  const place = (path: (string | number)[]): ConfigPlace => ({ field: path.join('.'), line: lineOf(path) });
  // A key's own line: `Durration:` rather than the first line of its options.
  const keyPlace = (path: (string | number)[], key: string): ConfigPlace => ({ field: [...path, key].join('.'), line: keyLineOf(path, key) });
  for (const [name, options] of Object.entries((raw.metric_options ?? {}) as Record<string, MetricOptions>)) {
    places[name] = keyPlace(['metric_options'], name);
    for (const option of Object.keys(options ?? {})) places[`${name}\u0000${option}`] = keyPlace(['metric_options', name], option);
  }
  for (const [level, list] of Object.entries((raw.metrics ?? {}) as Record<string, unknown[] | undefined>)) {
    (list ?? []).forEach((entry, i) => {
      if (typeof entry !== 'object' || entry === null) return;
      const { name, ...options } = entry as { name: string } & MetricOptions;
      places[name] ??= place(['metrics', level, i]);
      for (const option of Object.keys(options)) places[`${name}\u0000${option}`] = keyPlace(['metrics', level, i], option);
    });
  }
  return places;
}

/** A metric options problem of the configured options as a problem of the file that wrote them, at its line. */
export function optionsConfigError(config: MceConfig, error: MetricOptionsError): ConfigError | undefined {
  if (!config.source) return undefined;
  const places = config.optionPlaces ?? {};
  return new ConfigError(
    config.source,
    error.problems.map((p) => {
      const at = (p.option !== undefined ? places[`${p.metric}\u0000${p.option}`] : undefined) ?? places[p.metric];
      return { field: at?.field ?? `metric_options.${p.metric}`, line: at?.line, message: p.problem };
    }),
  );
}

/** Where a path of the file is written, for error messages. */
type LineOf = (path: readonly (string | number)[]) => number | undefined;
/** Where a key of the mapping at a path is written. */
type KeyLineOf = (path: readonly (string | number)[], key: string) => number | undefined;

/**
 * Options are per metric, not per scope: `Session: [{name: X, threshold: 0.2}]` and `AgentCall: [{name: X,
 * threshold: 0.9}]` cannot both hold, and would silently become one value. Say so at the second one's line.
 */
function checkInlineOptions(raw: Record<string, unknown>, lineOf: LineOf, file: string): void {
  const seen = new Map<string, { value: unknown; level: string }>();
  const problems: { line?: number; field: string; message: string }[] = [];
  for (const [level, list] of Object.entries((raw.metrics ?? {}) as Record<string, unknown[] | undefined>)) {
    (list ?? []).forEach((entry, i) => {
      if (typeof entry !== 'object' || entry === null) return;
      const { name, ...options } = entry as { name: string } & Record<string, unknown>;
      for (const [key, value] of Object.entries(options)) {
        const earlier = seen.get(`${name}\u0000${key}`);
        if (earlier && JSON.stringify(earlier.value) !== JSON.stringify(value)) {
          problems.push({
            line: lineOf(['metrics', level, i]),
            field: `metrics.${level}.${i}.${key}`,
            message: `${name} has ${key} ${JSON.stringify(earlier.value)} at ${earlier.level} already: options are per metric, not per scope`,
          });
        }
        seen.set(`${name}\u0000${key}`, { value, level });
      }
    });
  }
  if (problems.length > 0) throw new ConfigError(file, problems);
}

/** The line of every entry of `metrics:` (a name, or a `- name:` mapping). */
function metricLines(lineOf: LineOf, selection: MetricSelection): Record<string, number> {
  const lines: Record<string, number> = {};
  for (const [level, names] of Object.entries(selection)) {
    names.forEach((name, i) => {
      const line = lineOf(['metrics', level, i]);
      if (line !== undefined) lines[`${level}:${name}`] = line;
    });
  }
  return lines;
}

/** A selection problem of the configured metrics as a problem of the file that wrote them, at its line. */
export function selectionConfigError(config: MceConfig, error: MetricSelectionError): ConfigError | undefined {
  if (!config.source || !config.metrics) return undefined;
  return new ConfigError(
    config.source,
    error.selections.map((s) => ({ line: config.metricLines?.[`${s.level}:${s.metric}`], field: `metrics.${s.level}`, message: s.problem })),
  );
}

function fromRaw(raw: Record<string, unknown>, file: string): MceConfig {
  const config = defaultMceConfig();
  config.source = file;
  const engine = (raw.engine ?? {}) as Record<string, unknown>;
  if (typeof engine.max_workers === 'number') config.engine.maxWorkers = engine.max_workers;
  if (typeof engine.execution_strategy === 'string') config.engine.strategy = engine.execution_strategy as StrategyName;
  if (typeof engine.recursive === 'boolean') config.engine.recursive = engine.recursive;
  if (typeof engine.metric_timeout_ms === 'number') config.engine.metricTimeoutMs = engine.metric_timeout_ms;
  const cache = (raw.cache ?? {}) as Record<string, unknown>;
  config.cache = {
    path: typeof cache.path === 'string' ? cache.path : null,
    read: cache.read !== false,
    write: cache.write !== false,
    enabled: cache.enabled !== false,
  };
  const store = (raw.store ?? {}) as Record<string, unknown>;
  if (typeof store.url === 'string') config.store.url = store.url;
  const api = (raw.api ?? {}) as { keys?: ApiKey[] };
  config.api = { keys: (api.keys ?? []).map((k) => ({ name: k.name, hash: k.hash, scopes: [...k.scopes] })) };
  if (Array.isArray(raw.providers)) config.providers = [...(raw.providers as string[])];
  if (typeof raw.provider_discovery === 'boolean') config.discoverProviders = raw.provider_discovery;
  for (const [name, options] of Object.entries((raw.metric_options ?? {}) as Record<string, MetricOptions>)) {
    // defineProperty: a key named `__proto__` stays a (misspelt) metric name and is reported as unknown; an
    // assignment would set the object's prototype instead, and nothing would check it.
    Object.defineProperty(config.metricOptions, name, { value: { ...options }, enumerable: true, writable: true, configurable: true });
  }
  if (raw.metrics) {
    const selection: MetricSelection = {};
    for (const level of ONTOLOGY_LEVELS) {
      const list = (raw.metrics as Record<string, unknown[] | undefined>)[level];
      if (!list) continue;
      selection[level] = list.map((entry) => {
        if (typeof entry === 'string') return entry;
        const { name, ...options } = entry as { name: string } & MetricOptions;
        config.metricOptions[name] = { ...config.metricOptions[name], ...options };
        return name;
      });
    }
    config.metrics = selection;
  }
  config.worker = { ...((raw.worker ?? {}) as Record<string, unknown>) };
  config.receiver = { ...((raw.receiver ?? {}) as Record<string, unknown>) };
  return config;
}

/**
 * Load the configuration: an explicit path (must exist), else `MCE_CONFIG`, else `./mce_config.yaml` when present,
 * else the defaults.
 */
export function loadMceConfig(path?: string, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): MceConfig {
  // An empty MCE_CONFIG (say, from an env file) means "not set", as for every other variable.
  const explicit = path ?? (env.MCE_CONFIG?.trim() || undefined);
  // Relative to the given working directory, which is not always the process's (`main(argv, { cwd })`).
  const file = resolve(cwd, explicit ?? 'mce_config.yaml');
  if (!existsSync(file)) {
    if (explicit) throw new ConfigError(explicit, [{ field: '(file)', message: 'file not found' }]);
    return { ...defaultMceConfig(), baseDir: cwd };
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(explicit ?? 'mce_config.yaml', [{ field: '(file)', message: (error as Error).message }]);
  }
  return { ...parseMceConfig(text, explicit ?? 'mce_config.yaml'), baseDir: cwd };
}
