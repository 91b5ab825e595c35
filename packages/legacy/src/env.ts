/**
 * The old engine's environment variables, read onto mce's settings: the judge's (LLM_*, NUM_LLM_RETRIES), the cache,
 * the api-layer's (API_BASE_URL, its headers, SESSIONS_TRACES_MAX, PAGINATION_*), and the server's HOST and PORT. The
 * ones that no longer mean anything are named at start-up as ignored. A malformed value is an error naming it.
 */
import type { ApiLayerOptions } from './api-layer.js';
import type { LegacySettings } from './compute.js';
import { DEFAULT_SETTINGS } from './compute.js';

/** Read but no longer acted on, with why. */
const IGNORED: Readonly<Record<string, string>> = Object.freeze({
  RELOAD: 'mce does not reload its code',
  WORKERS: 'one process serves; computations run in a worker thread of their own',
  API_VERIFY_SSL: "TLS is always verified (Node's trust store; NODE_EXTRA_CA_CERTS adds a certificate authority)",
  WRITER_API_BASE_URL: 'results are written to API_BASE_URL, as the old engine did',
  WRITER_API_VERIFY_SSL: 'results are written to API_BASE_URL, as the old engine did',
  MCE_SPAN_METRIC_ENTITY_TYPE_ALLOWLIST: 'each mce metric declares the calls it measures',
  LOG_LEVEL: 'mce serve logs at info level (-v or --debug for more)',
});
const IGNORED_PREFIX = 'MOCK_LLM_PROXY_';

/** Old name → the mce variable it sets (when that one is not set already). */
const RENAMED: Readonly<Record<string, string>> = Object.freeze({
  LLM_BASE_MODEL_URL: 'LLM_BASE_MODEL_URL_MCE',
  LLM_API_KEY: 'OPENAI_API_KEY',
  NUM_LLM_RETRIES: 'MCE_JUDGE_MAX_RETRIES',
  METRICS_CACHE_ENABLED: 'MCE_METRIC_CACHE',
});

export interface LegacyEnvironment {
  /** mce variables to set (each absent from the environment), from their old names. */
  mapped: Record<string, string>;
  settings: LegacySettings;
  /** Present when API_BASE_URL is set: sessions are read from, and results written to, that api-layer. */
  apiLayer?: ApiLayerOptions;
  host?: string;
  port?: number;
  /** One line per old variable set and ignored, with the reason. */
  ignored: string[];
}

export class LegacyEnvError extends Error {
  override name = 'LegacyEnvError';
}

function positiveInt(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new LegacyEnvError(`${name} must be a positive integer (got "${raw}")`);
  return Number(raw);
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return undefined;
  if (!/^(true|false|1|0|yes|no)$/.test(raw)) throw new LegacyEnvError(`${name} must be true or false (got "${env[name]}")`);
  return /^(true|1|yes)$/.test(raw);
}

function headers(env: NodeJS.ProcessEnv): Record<string, string> | undefined {
  const raw = env.DB_ADAPTER_TYPE_API_HEADERS?.trim();
  if (!raw) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new LegacyEnvError(`DB_ADAPTER_TYPE_API_HEADERS must be a JSON object of header names to values: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !Object.values(parsed).every((v) => typeof v === 'string')) {
    throw new LegacyEnvError('DB_ADAPTER_TYPE_API_HEADERS must be a JSON object of header names to string values');
  }
  return parsed as Record<string, string>;
}

export function readLegacyEnv(env: NodeJS.ProcessEnv): LegacyEnvironment {
  const mapped: Record<string, string> = {};
  for (const [old, current] of Object.entries(RENAMED)) {
    const value = env[old]?.trim();
    if (value && env[current] === undefined) mapped[current] = value;
  }
  if (mapped.MCE_JUDGE_MAX_RETRIES !== undefined) positiveIntOrZero(mapped.MCE_JUDGE_MAX_RETRIES, 'NUM_LLM_RETRIES');
  const cache = flag(env, 'METRICS_CACHE_ENABLED');
  if (cache !== undefined && mapped.MCE_METRIC_CACHE !== undefined) mapped.MCE_METRIC_CACHE = String(cache);
  const settings: LegacySettings = {
    maxSessions: positiveInt(env, 'PAGINATION_DEFAULT_MAX_SESSIONS') ?? DEFAULT_SETTINGS.maxSessions,
    alwaysWrite: cache ?? false,
  };
  const base = env.API_BASE_URL?.trim();
  if (base && !/^https?:\/\/[^/]/.test(base)) throw new LegacyEnvError(`API_BASE_URL must be an http(s) URL (got "${base}")`);
  const pageSize = positiveInt(env, 'PAGINATION_LIMIT');
  const perRequest = positiveInt(env, 'SESSIONS_TRACES_MAX');
  const extra = headers(env);
  const port = env.PORT?.trim() ? Number(env.PORT) : undefined;
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) throw new LegacyEnvError(`PORT must be 0–65535 (got "${env.PORT}")`);
  const ignored = Object.keys(env)
    .filter((name) => env[name] !== undefined && (name in IGNORED || name.startsWith(IGNORED_PREFIX)))
    .sort()
    .map((name) => `${name} is ignored: ${IGNORED[name] ?? 'mce has no mock LLM proxy (tests use a scripted OpenAI-compatible server)'}`);
  return {
    mapped,
    settings,
    ...(base ? { apiLayer: { baseUrl: base, ...(extra ? { headers: extra } : {}), ...(pageSize ? { pageSize } : {}), ...(perRequest ? { sessionsPerRequest: perRequest } : {}) } } : {}),
    ...(env.HOST?.trim() ? { host: env.HOST.trim() } : {}),
    ...(port !== undefined ? { port } : {}),
    ignored,
  };
}

function positiveIntOrZero(raw: string, name: string): void {
  if (!/^\d+$/.test(raw)) throw new LegacyEnvError(`${name} must be a whole number of retries (got "${raw}")`);
}
