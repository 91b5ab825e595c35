/**
 * The eval mode of the MCP metrics and where it came from: a metric's own `eval_mode` option, else the
 * `MCE_EVAL_MODE` environment variable, else the mode persisted by `mce set-eval-mode` in the user config, else `llm`.
 */

export const EVAL_MODES = ['llm', 'hybrid', 'system_one'] as const;
export type EvalMode = (typeof EVAL_MODES)[number];
export type EvalModeSource = 'metric' | 'env' | 'user-config' | 'default';

export const EVAL_MODE_ENV = 'MCE_EVAL_MODE';

export function isEvalMode(value: unknown): value is EvalMode {
  return typeof value === 'string' && (EVAL_MODES as readonly string[]).includes(value);
}

/** Accepts `system-one` / `System_One` spellings; throws naming where the bad value came from. */
export function parseEvalMode(value: unknown, origin: string): EvalMode {
  const normal = typeof value === 'string' ? value.trim().toLowerCase().replace(/-/g, '_') : value;
  if (isEvalMode(normal)) return normal;
  throw new Error(`${origin}: eval mode ${JSON.stringify(value)} is not one of ${EVAL_MODES.join(', ')}`);
}

export interface EvalModeInputs {
  /** The metric's `eval_mode` option (config or library). */
  metricOption?: unknown;
  /** The value of MCE_EVAL_MODE. */
  env?: string | undefined;
  /** The mode persisted in the user config file. */
  persisted?: string | undefined;
}

export interface ResolvedEvalMode {
  mode: EvalMode;
  source: EvalModeSource;
}

/** Pure: metric option > MCE_EVAL_MODE > persisted user config > `llm`. Empty values count as unset. */
export function resolveEvalMode(inputs: EvalModeInputs): ResolvedEvalMode {
  const set = (v: unknown) => v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '');
  if (set(inputs.metricOption)) return { mode: parseEvalMode(inputs.metricOption, 'eval_mode option'), source: 'metric' };
  if (set(inputs.env)) return { mode: parseEvalMode(inputs.env, EVAL_MODE_ENV), source: 'env' };
  if (set(inputs.persisted)) return { mode: parseEvalMode(inputs.persisted, 'user config eval_mode'), source: 'user-config' };
  return { mode: 'llm', source: 'default' };
}

let persistedMode: EvalMode | undefined;

/**
 * Carries the persisted mode to worker threads and child processes (they inherit the environment at start, not
 * this module's state). Internal: users set MCE_EVAL_MODE or run `mce set-eval-mode`.
 */
export const PERSISTED_EVAL_MODE_ENV = 'MCE_PERSISTED_EVAL_MODE';

/**
 * The process-wide mode read from the user config (the client calls this after `readPersistedEvalMode`), used by
 * the MCP metrics when neither their option nor MCE_EVAL_MODE says otherwise. Also exported to the environment so
 * metrics running in worker threads or child processes started afterwards see it.
 */
export function setPersistedEvalMode(mode: EvalMode | undefined): void {
  persistedMode = mode;
  if (mode === undefined) delete process.env[PERSISTED_EVAL_MODE_ENV];
  else process.env[PERSISTED_EVAL_MODE_ENV] = mode;
}

/** The mode set with setPersistedEvalMode in this process, or inherited from the process that started it. */
export function persistedEvalMode(): EvalMode | undefined {
  if (persistedMode !== undefined) return persistedMode;
  const inherited = process.env[PERSISTED_EVAL_MODE_ENV];
  return isEvalMode(inherited) ? inherited : undefined;
}
