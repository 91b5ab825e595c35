/**
 * A logger that loads pino only when it is first used at its level or above: at the default level (warn) most runs
 * log nothing, and loading pino cost 20–25 ms of every command's start (bench/ingest --real-trace).
 */
import type { Logger } from 'pino';

/** pino's level numbers (pino.levels.values), known without loading it. */
const LEVELS: Readonly<Record<string, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

const ignore = (): void => {};

/** `make()`'s logger, made at the first call that would write (a method at `level` or above) or any other use. */
export function lazyLogger(level: 'debug' | 'info' | 'warn', make: () => Logger): Logger {
  let real: Logger | undefined;
  const threshold = LEVELS[level] as number;
  const made = (): Logger => (real ??= make());
  return new Proxy({} as Logger, {
    set: (_target, prop, value) => Reflect.set(made(), prop, value),
    get(_target, prop) {
      const rank = typeof prop === 'string' ? LEVELS[prop] : undefined;
      if (rank !== undefined && rank < threshold && real === undefined) return ignore;
      const logger = made();
      const value: unknown = Reflect.get(logger, prop, logger);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(logger) : value;
    },
  });
}
