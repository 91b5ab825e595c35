import { createRequire } from 'node:module';
import type { StoreLogger } from './types.js';

// pino is loaded at the first line a default logger writes, not with the package nor with the store: most commands
// never log through one (loading pino cost 20–25 ms of a `mce compute --input --no-store`).
const require = createRequire(import.meta.url);
let shared: StoreLogger | undefined;

function pinoLogger(): StoreLogger {
  if (shared) return shared;
  const { pino } = require('pino') as typeof import('pino');
  shared = pino({ name: 'mce-store' }, pino.destination(2));
  return shared;
}

/** Rejections go to stderr as JSON lines when the caller gives no logger of its own. */
export function defaultLogger(): StoreLogger {
  return { warn: (details, message) => pinoLogger().warn(details, message) };
}
