/**
 * Which errors are the user's input (exit code 2) rather than a runtime failure (1). Loaded only when a command has
 * failed: the error classes live beside the code that throws them, which a quick command never loads.
 */
import { MetricOptionsError, MetricSelectionError, SessionNotFoundError, DependencyCycleError, UnknownDependencyError } from '@mce/core';
import { ConfigError, EnvError } from '../config/index.js';
import { IngestError } from '../ingest/errors.js';
import { StoreNotFoundError, StoreOpenError } from '../store/open.js';
import { ResultQueryTextError } from '../store/result-query-text.js';
import { PluginError } from '../plugins/load-providers.js';
import { UsageError } from './usage-error.js';

const BAD_INPUT = [
  PluginError, ConfigError, EnvError, IngestError, UsageError, MetricSelectionError, MetricOptionsError, SessionNotFoundError, DependencyCycleError,
  UnknownDependencyError, StoreNotFoundError, ResultQueryTextError,
];

/** A bad `worker:` section or MCE_AMQP_URL: `@mce/worker` is loaded on demand, so its error class is known by name. */
const isBadWorkerInput = (error: unknown): boolean => error instanceof Error && error.name === 'WorkerConfigError';

export function isBadInput(error: unknown): boolean {
  const badStore = error instanceof StoreOpenError && error.badInput;
  return BAD_INPUT.some((E) => error instanceof E) || badStore || isBadWorkerInput(error);
}
