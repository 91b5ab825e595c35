/**
 * `MCEClientConfig.fromEnv()`: the connection and tuning settings of the seed's environment variables.
 * Values from the environment override mce_config.yaml (see `applyEnvOverrides`).
 */
import { EngineOptionError, MceError, engineOptionsFromEnv, type EngineOptions, type StrategyName } from '@mce/core';
import { priceRefreshOptionsFromEnv } from '@mce/provider-native';
import { EVAL_MODES, isEvalMode } from '@mce/provider-native';
import { parseStoreUrl, storeUrlFromEnv } from '@mce/store';
import type { MceConfig } from './mce-config.js';

export class EnvError extends MceError {
  readonly kind = 'bad-input' as const;
  constructor(variable: string, message: string) {
    super(`environment variable ${variable}: ${message}`);
    this.name = 'EnvError';
  }
}

function bool(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const v = env[name]?.trim().toLowerCase();
  if (v === undefined || v === '') return undefined;
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new EnvError(name, `expected true or false, got "${env[name]}"`);
}

function int(env: NodeJS.ProcessEnv, name: string, min: number): number | undefined {
  const v = env[name]?.trim();
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new EnvError(name, `expected an integer ≥ ${min}, got "${v}"`);
  return n;
}

function num(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const v = env[name]?.trim();
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new EnvError(name, `expected a non-negative number, got "${v}"`);
  return n;
}

/** `MCE_ENGINE_STRATEGY` / `MCE_ENGINE_MAX_WORKERS` / `MCE_METRIC_TIMEOUT_MS` read as the engine reads them; a bad value is an EnvError. */
function engineOptions(env: NodeJS.ProcessEnv): EngineOptions {
  try {
    return engineOptionsFromEnv(env);
  } catch (error) {
    if (error instanceof EngineOptionError) throw new EnvError(error.source, `expected ${error.expected}, got "${error.value}"`);
    throw error;
  }
}

function first(env: NodeJS.ProcessEnv, ...names: string[]): string | undefined {
  for (const n of names) {
    const v = env[n]?.trim();
    if (v) return v;
  }
  return undefined;
}

/**
 * The price refresh's variables (MODEL_PRICES_*), checked as it will read them: from the process's environment, at
 * the first price lookup, where a bad value would fail every Cost result. A bad one is an EnvError naming it.
 */
export function checkPriceRefreshEnv(env: NodeJS.ProcessEnv = process.env): void {
  try {
    priceRefreshOptionsFromEnv(env);
  } catch (error) {
    const [, name = 'MODEL_PRICES_*', detail = (error as Error).message] = /^([A-Z_]+)=[^:]*: (.*)$/s.exec((error as Error).message) ?? [];
    throw new EnvError(name, `${detail}, got "${env[name] ?? ''}"`);
  }
}

export class MCEClientConfig {
  /** `MCE_STORE_URL`; else a Neo4j URI from `NEO4J_URI` / `KG_DB_HOST`; else undefined (the embedded default). */
  storeUrl?: string;
  neo4j: { uri?: string; username?: string; password?: string; database?: string } = {};
  /** `MCE_METRIC_CACHE`: false turns the record/replay cache off; a path sets its file. */
  metricCache?: boolean | string;
  engineMaxWorkers?: number;
  engineStrategy?: StrategyName;
  engineMetricTimeoutMs?: number;
  workaroundsFirst?: boolean;
  judgeSamples?: number;
  judgeTemperature?: number;
  judgeLogprobs?: boolean;
  llmModelName?: string;
  llmBaseUrl?: string;
  openaiApiKey?: string;
  evalMode?: string;
  configPath?: string;
  /** `MCE_PROVIDER_DISCOVERY`: false leaves installed provider packages out unless `providers:` names them. */
  providerDiscovery?: boolean;

  static fromEnv(env: NodeJS.ProcessEnv = process.env): MCEClientConfig {
    const c = new MCEClientConfig();
    c.neo4j = {
      uri: first(env, 'NEO4J_URI', 'KG_DB_HOST'),
      username: first(env, 'NEO4J_USERNAME', 'KG_DB_USER'),
      password: first(env, 'NEO4J_PASSWORD', 'KG_DB_PASSWORD'),
      database: first(env, 'NEO4J_DATABASE', 'KG_DB_NAME'),
    };
    // A Neo4j host as the store selection reads it (a bare host:port gets its bolt:// scheme).
    c.storeUrl = first(env, 'MCE_STORE_URL') ?? (c.neo4j.uri ? storeUrlFromEnv(env) : undefined);
    const cache = env.MCE_METRIC_CACHE?.trim();
    // `none` / `disabled` read as off too: as a file name they would quietly create a cache called "none".
    if (cache) {
      c.metricCache = /^(none|disabled)$/i.test(cache) ? false : /^(true|false|0|1|on|off|yes|no)$/i.test(cache) ? bool(env, 'MCE_METRIC_CACHE') : cache;
    }
    const engine = engineOptions(env);
    c.engineMaxWorkers = engine.maxWorkers;
    c.engineStrategy = engine.strategy;
    c.engineMetricTimeoutMs = engine.metricTimeoutMs;
    c.workaroundsFirst = bool(env, 'MCE_WORKAROUNDS_FIRST');
    c.judgeSamples = int(env, 'MCE_JUDGE_SAMPLES', 1);
    c.judgeTemperature = num(env, 'MCE_JUDGE_TEMPERATURE');
    c.judgeLogprobs = bool(env, 'MCE_JUDGE_LOGPROBS');
    c.llmModelName = first(env, 'LLM_MODEL_NAME');
    c.llmBaseUrl = first(env, 'LLM_BASE_MODEL_URL_MCE');
    c.openaiApiKey = first(env, 'OPENAI_API_KEY');
    c.evalMode = first(env, 'MCE_EVAL_MODE');
    if (c.evalMode !== undefined && !isEvalMode(c.evalMode)) {
      throw new EnvError('MCE_EVAL_MODE', `"${c.evalMode}" is not one of ${EVAL_MODES.join(', ')}`);
    }
    if (c.storeUrl !== undefined) {
      try {
        parseStoreUrl(c.storeUrl);
      } catch (error) {
        throw new EnvError(env.MCE_STORE_URL?.trim() ? 'MCE_STORE_URL' : 'NEO4J_URI', (error as Error).message);
      }
    }
    c.configPath = first(env, 'MCE_CONFIG');
    c.providerDiscovery = bool(env, 'MCE_PROVIDER_DISCOVERY');
    return c;
  }

  /** The configuration with environment values laid over the file's. */
  applyTo(config: MceConfig): MceConfig {
    const out: MceConfig = { ...config, engine: { ...config.engine }, cache: { ...config.cache }, store: { ...config.store } };
    if (this.engineMaxWorkers !== undefined) out.engine.maxWorkers = this.engineMaxWorkers;
    if (this.engineStrategy !== undefined) out.engine.strategy = this.engineStrategy;
    if (this.engineMetricTimeoutMs !== undefined) out.engine.metricTimeoutMs = this.engineMetricTimeoutMs;
    if (this.storeUrl !== undefined) out.store.url = this.storeUrl;
    if (typeof this.metricCache === 'boolean') out.cache.enabled = this.metricCache;
    if (this.providerDiscovery !== undefined) out.discoverProviders = this.providerDiscovery;
    if (typeof this.metricCache === 'string') {
      out.cache.enabled = true;
      out.cache.path = this.metricCache;
    }
    return out;
  }
}
