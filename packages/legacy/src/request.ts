/**
 * The telemetry-hub `MetricsConfigRequest` of `POST /compute_metrics`, with its defaults, and its validation: either
 * a batch config with at least one criterion (a missing time range becomes the last 7 days) or a non-empty list of
 * session ids, never both. Fields the old API did not define are ignored, as it ignored them.
 */
import { z } from 'zod';

/** The old default metric list, used when a request names none. */
export const DEFAULT_LEGACY_METRICS: readonly string[] = ['AgentToToolInteractions', 'GraphDeterminismScore'];
/** The old default judge model of a request (its env fallback is `gpt-4-turbo`). */
export const DEFAULT_REQUEST_MODEL = 'gpt-5';
/** The placeholder key that tells the old engine to take the judge from its environment. */
export const PLACEHOLDER_API_KEY = 'sk-...';
/** How far back a batch reaches when it gives no time range. */
export const DEFAULT_BATCH_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

const llmJudgeConfig = z.object({
  LLM_BASE_MODEL_URL: z.string().default('https://api.openai.com/v1'),
  LLM_MODEL_NAME: z.string().default(DEFAULT_REQUEST_MODEL),
  LLM_API_KEY: z.string().default(PLACEHOLDER_API_KEY),
  NUM_LLM_RETRIES: z.number().int().default(3),
});

// The old API passed these through unread; a time that does not parse is named here instead of failing later.
const isoTime = z.string().refine((text) => !Number.isNaN(Date.parse(text)), 'must be an ISO 8601 time (2025-06-25T15:04:05Z)');
const timeRange = z.object({ start: isoTime, end: isoTime });

const batchConfig = z.object({
  time_range: timeRange.nullish(),
  num_sessions: z.number().int().nullish(),
  app_name: z.string().nullish(),
});

const metricOptions = z.object({
  computation_level: z.array(z.string()).nullish(),
  write_to_db: z.boolean().nullish(),
  include_stack_trace: z.boolean().nullish(),
  include_unmatched_spans: z.boolean().nullish(),
  reorg_by_entity: z.boolean().nullish(),
});

export const legacyRequestSchema = z.object({
  metrics: z.array(z.string()).default([...DEFAULT_LEGACY_METRICS]),
  llm_judge_config: llmJudgeConfig.default(() => llmJudgeConfig.parse({})),
  data_fetching_infos: z
    .object({ batch_config: batchConfig.default({}), session_ids: z.array(z.string()).default([]) })
    .default({ batch_config: {}, session_ids: [] }),
  metric_options: metricOptions.nullish(),
});

export type LegacyRequestBody = z.infer<typeof legacyRequestSchema>;
export type JudgeConfig = z.infer<typeof llmJudgeConfig>;

/** Where the sessions come from: listed ids, or a batch of the sessions that started in a window. */
export type SessionSelection =
  | { kind: 'ids'; sessionIds: string[] }
  | { kind: 'batch'; start: string; end: string; numSessions?: number; appName?: string };

export interface LegacyOptions {
  /** 'session' and/or 'agent' (default ['session']); span-level metrics are computed whatever is asked. */
  computationLevels: string[];
  writeToDb: boolean;
  includeStackTrace: boolean;
  includeUnmatchedSpans: boolean;
  reorgByEntity: boolean;
}

export interface LegacyRequest {
  metrics: string[];
  judge: JudgeConfig;
  selection: SessionSelection;
  options: LegacyOptions;
}

/** A FastAPI-style 422 entry: where in the body, what is wrong. */
export interface FieldError {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

export type ParsedRequest = { ok: true; request: LegacyRequest } | { ok: false; status: 400 | 422; body: { detail: string | FieldError[] } };

/** The old API's answer to a request whose data-fetching configuration is not one of the two forms. */
export const INVALID_CONFIGURATION = 'Invalid request configuration.';

/** Parses and validates a request body; `now` fixes the default batch window (the end of it). */
export function parseLegacyRequest(body: unknown, now: Date = new Date()): ParsedRequest {
  const parsed = legacyRequestSchema.safeParse(body);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((issue) => ({ loc: ['body', ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))], msg: issue.message, type: issue.code }));
    return { ok: false, status: 422, body: { detail } };
  }
  const selection = selectionOf(parsed.data.data_fetching_infos, now);
  if (!selection) return { ok: false, status: 400, body: { detail: INVALID_CONFIGURATION } };
  const o = parsed.data.metric_options ?? {};
  return {
    ok: true,
    request: {
      metrics: parsed.data.metrics,
      judge: parsed.data.llm_judge_config,
      selection,
      options: {
        computationLevels: o.computation_level ?? ['session'],
        writeToDb: o.write_to_db ?? false,
        includeStackTrace: o.include_stack_trace ?? false,
        includeUnmatchedSpans: o.include_unmatched_spans ?? false,
        reorgByEntity: o.reorg_by_entity ?? false,
      },
    },
  };
}

type Fetching = LegacyRequestBody['data_fetching_infos'];

/** The exclusive or of the two forms; undefined when neither or both are given. */
function selectionOf({ batch_config: batch, session_ids: ids }: Fetching, now: Date): SessionSelection | undefined {
  const hasBatch = batch.time_range != null || batch.num_sessions != null || batch.app_name != null;
  if (hasBatch === ids.length > 0) return undefined;
  if (!hasBatch) return { kind: 'ids', sessionIds: ids };
  const range = batch.time_range ?? { start: isoZ(new Date(now.getTime() - DEFAULT_BATCH_WINDOW_MS)), end: isoZ(now) };
  return {
    kind: 'batch',
    start: range.start,
    end: range.end,
    ...(batch.num_sessions != null ? { numSessions: batch.num_sessions } : {}),
    ...(batch.app_name != null ? { appName: batch.app_name } : {}),
  };
}

function isoZ(date: Date): string {
  return date.toISOString();
}
