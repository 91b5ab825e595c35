import { pino } from 'pino';
import type { StoreLogger } from './types.js';

let shared: StoreLogger | undefined;

/** Rejections go to stderr as JSON lines when the caller gives no logger of its own. */
export function defaultLogger(): StoreLogger {
  shared ??= pino({ name: 'mce-store' }, pino.destination(2));
  return shared;
}
