/** Structured JSON logs (pino). The level comes from the caller, else MCE_LOG_LEVEL, else `info`. */
import { pino, type Logger } from 'pino';
import { boundLogFields } from '@mce/core';

export type { Logger } from 'pino';

export function createLogger(options: { level?: string; name?: string; destination?: pino.DestinationStream } = {}): Logger {
  return pino({
    name: options.name ?? 'mce-worker',
    level: options.level ?? process.env.MCE_LOG_LEVEL ?? 'info',
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Every line bounded: a message naming 100,000 unknown sessions must not write megabytes.
    formatters: { log: boundLogFields },
  }, options.destination ?? pino.destination(1));
}
