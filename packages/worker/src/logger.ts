/** Structured JSON logs (pino). The level comes from the caller, else MCE_LOG_LEVEL, else `info`. */
import { pino, type Logger } from 'pino';
import { boundLogFields } from '@mce/core';

export type { Logger } from 'pino';

export interface LoggerOptions {
  level?: string;
  name?: string;
  destination?: pino.DestinationStream;
  /** Rewrites each line before it is written (mce-worker: the secrets of its environment out, `logLineRedactor`). */
  redact?: (line: string) => string;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const redact = options.redact;
  return pino({
    name: options.name ?? 'mce-worker',
    level: options.level ?? process.env.MCE_LOG_LEVEL ?? 'info',
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Every line bounded: a message naming 100,000 unknown sessions must not write megabytes.
    formatters: { log: boundLogFields },
    ...(redact ? { hooks: { streamWrite: redact } } : {}),
  }, options.destination ?? pino.destination(1));
}
