/**
 * Parameters of the MCP metrics, from the metric's options in mce_config.yaml (snake_case) or the library API
 * (snake_case or camelCase). Validated here, at the edge.
 */
import { didYouMean, snakeCase } from '@mce/core';
import { z } from 'zod';
import { SYSTEM_ONE_QUESTIONS, type SystemOneQuestion } from './system-one/types.js';

/** The seed's default System One model: the local calibrated model. */
export const DEFAULT_SYSTEM_ONE_MODEL = 'jev-latest';
/** Names of the local model (`local` kept for configurations written before `jev-latest`). */
export const LOCAL_SYSTEM_ONE_NAMES: readonly string[] = [DEFAULT_SYSTEM_ONE_MODEL, 'local'];
export const SYSTEM_ONE_MODEL_HINT = 'expected "jev-latest" (or "local"), or "endpoint:<model>"';

export interface McpMetricOptions {
  /** null = score only (no success verdict). */
  threshold: number | null;
  /** Judge model for llm / hybrid (default: `LLM_MODEL_NAME`, else DEFAULT_MCP_JUDGE_MODEL; see define.ts). */
  model?: string;
  includeReason: boolean;
  /** Score becomes 1 or 0 against a threshold of 1. */
  strictMode: boolean;
  /** Sub-judgements (and turns) run concurrently. */
  asyncMode: boolean;
  /** Intermediate steps printed to stderr as they happen, and kept in `details.steps`. */
  verboseMode: boolean;
  /** Marks the result `details.flaky` (nothing else changes: no retry, same score). */
  flaky: boolean;
  /** `jev-latest` (the local calibrated model; `local` is the same), or `endpoint:<model>`. */
  systemOneModel: string;
  /** The raw eval_mode option (resolved with the environment and user config by resolveEvalMode). */
  evalMode?: unknown;
  /** Weights of the three System One answers in system_one mode (normalised). */
  weights: Record<SystemOneQuestion, number>;
}

const weightsSchema = z.union([
  z.tuple([z.number().min(0), z.number().min(0), z.number().min(0)]),
  z.strictObject({ primitives: z.number().min(0), arguments: z.number().min(0), task: z.number().min(0) }).partial(),
]);

/** Its keys are core's `MCP_OPTION_NAMES` (the metrics' declared options); a test keeps the two equal. */
export const McpOptionsSchema = z.object({
  threshold: z.number().min(0).max(1).nullable().optional(),
  model: z.string().min(1).optional(),
  include_reason: z.boolean().optional(),
  strict_mode: z.boolean().optional(),
  async_mode: z.boolean().optional(),
  verbose_mode: z.boolean().optional(),
  flaky: z.boolean().optional(),
  system_one_model: z
    .string()
    .regex(/^(jev-latest|local|endpoint:.+)$/, SYSTEM_ONE_MODEL_HINT)
    .optional(),
  eval_mode: z.string().optional(),
  system_one_weights: weightsSchema.optional(),
});

/**
 * Parse options (later sources win, camelCase keys read as snake_case). An option no MCP metric reads is an error
 * naming it (a misspelt `treshold` would otherwise leave the default in force unnoticed), as in mce_config.yaml.
 */
export function parseMcpOptions(...sources: ReadonlyArray<Readonly<Record<string, unknown>> | undefined>): McpMetricOptions {
  const merged: Record<string, unknown> = {};
  for (const source of sources)
    for (const [k, v] of Object.entries(source ?? {})) if (v !== undefined) merged[snakeCase(k)] = v;
  const known = Object.keys(McpOptionsSchema.shape);
  const unknown = Object.keys(merged).filter((key) => !known.includes(key));
  if (unknown.length > 0) {
    const named = unknown.map((key) => `no option "${key}"${didYouMean(key, known)}`).join('; ');
    throw new Error(`invalid MCP metric options: ${named}; the options are ${known.join(', ')}`);
  }
  const parsed = McpOptionsSchema.safeParse(merged);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(options)'}: ${i.message}`).join('; ');
    throw new Error(`invalid MCP metric options: ${issues}`);
  }
  const o = parsed.data;
  const raw = o.system_one_weights;
  const w = Array.isArray(raw)
    ? { primitives: raw[0], arguments: raw[1], task: raw[2] }
    : { primitives: raw?.primitives ?? 1, arguments: raw?.arguments ?? 1, task: raw?.task ?? 1 };
  const total = SYSTEM_ONE_QUESTIONS.reduce((s, q) => s + w[q], 0);
  if (!(total > 0)) throw new Error('invalid MCP metric options: system_one_weights must not all be 0');
  return {
    threshold: o.threshold === undefined ? 0.5 : o.threshold,
    ...(o.model ? { model: o.model } : {}),
    includeReason: o.include_reason ?? true,
    strictMode: o.strict_mode ?? false,
    asyncMode: o.async_mode ?? true,
    verboseMode: o.verbose_mode ?? false,
    flaky: o.flaky ?? false,
    systemOneModel: o.system_one_model ?? DEFAULT_SYSTEM_ONE_MODEL,
    ...(o.eval_mode !== undefined ? { evalMode: o.eval_mode } : {}),
    weights: { primitives: w.primitives / total, arguments: w.arguments / total, task: w.task / total },
  };
}
