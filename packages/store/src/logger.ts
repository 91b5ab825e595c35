import { createRequire } from 'node:module';
import type { StoreLogger } from './types.js';

// pino is loaded with the first default logger, not with the package: most commands never need one.
const require = createRequire(import.meta.url);
let shared: StoreLogger | undefined;

/** Rejections go to stderr as JSON lines when the caller gives no logger of its own. */
export function defaultLogger(): StoreLogger {
  if (shared) return shared;
  const { pino } = require('pino') as typeof import('pino');
  const logger: StoreLogger = pino({ name: 'mce-store' }, pino.destination(2));
  shared = logger;
  return logger;
}
