/** The receiver's settings: the `receiver:` section of mce_config.yaml (checked by its schema), then the environment. */
import { EnvError } from '../config/client-config.js';
import type { MceConfig } from '../config/mce-config.js';

export type EvaluateMode = 'in-process' | 'queue' | 'none';

export interface ReceiverSettings {
  /** A session is complete once none of its spans arrived for this long (ms). */
  sessionIdleMs: number;
  /** A span without a parent (the session's root) completes its session too. */
  completeOnRoot: boolean;
  /** Largest body accepted, before and after gzip (bytes): larger gets 413. */
  maxBodyBytes: number;
  /** Spans held in memory (waiting for their session's id, or being stored): past it, 429. */
  maxBufferedSpans: number;
  /** Retry-After of a 429 or 503 (seconds). */
  retryAfterSeconds: number;
  evaluate: EvaluateMode;
  exportOtlp: { enabled: boolean; endpoint?: string };
}

export const DEFAULT_RECEIVER_SETTINGS: ReceiverSettings = {
  sessionIdleMs: 30_000,
  completeOnRoot: true,
  maxBodyBytes: 16 * 1024 * 1024,
  maxBufferedSpans: 200_000,
  retryAfterSeconds: 2,
  evaluate: 'in-process',
  exportOtlp: { enabled: false },
};

/** A whole number of ms from MCE_RECEIVER_SESSION_IDLE_MS, else undefined; anything else is an EnvError naming it. */
function idleFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const name = 'MCE_RECEIVER_SESSION_IDLE_MS';
  const text = env[name]?.trim();
  if (!text) return undefined;
  const ms = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(ms) || ms < 1) throw new EnvError(name, `expected a positive whole number of milliseconds, got "${text}"`);
  return ms;
}

export function receiverSettings(config: Pick<MceConfig, 'receiver'>, env: NodeJS.ProcessEnv = process.env): ReceiverSettings {
  const raw = config.receiver;
  const d = DEFAULT_RECEIVER_SETTINGS;
  const exportRaw = (raw.export_otlp ?? {}) as { enabled?: boolean; endpoint?: string };
  return {
    sessionIdleMs: idleFromEnv(env) ?? (raw.session_idle_ms as number | undefined) ?? d.sessionIdleMs,
    completeOnRoot: (raw.complete_on_root as boolean | undefined) ?? d.completeOnRoot,
    maxBodyBytes: raw.max_body_mb === undefined ? d.maxBodyBytes : Math.max(1, Math.round((raw.max_body_mb as number) * 1024 * 1024)),
    maxBufferedSpans: (raw.max_buffered_spans as number | undefined) ?? d.maxBufferedSpans,
    retryAfterSeconds: (raw.retry_after_s as number | undefined) ?? d.retryAfterSeconds,
    evaluate: (raw.evaluate as EvaluateMode | undefined) ?? d.evaluate,
    exportOtlp: { enabled: exportRaw.enabled ?? false, ...(exportRaw.endpoint ? { endpoint: exportRaw.endpoint } : {}) },
  };
}
