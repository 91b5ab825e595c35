import { MceError } from '../errors.js';

/** A metric selection that cannot run: unknown metric, or a level the metric does not support. */
export class MetricSelectionError extends MceError {
  override readonly name = 'MetricSelectionError';
  readonly kind = 'bad-input' as const;
  readonly problems: readonly string[];
  /** Each problem with the (metric, level) request it is about: where a configuration file wrote it can be named. */
  constructor(readonly selections: readonly { metric: string; level: string; problem: string }[]) {
    const problems = selections.map((s) => s.problem);
    super(problems.length === 1 ? (problems[0] as string) : `Invalid metric selection:\n- ${problems.join('\n- ')}`);
    this.problems = problems;
  }
}

/** Options set for a metric that is not registered, or that the metric does not read (`MetricMetadata.options`). */
export class MetricOptionsError extends MceError {
  override readonly name = 'MetricOptionsError';
  readonly kind = 'bad-input' as const;
  /** Each problem with the metric name (as given) and the option it is about (none: the whole entry). */
  constructor(readonly problems: readonly { metric: string; option?: string; problem: string }[]) {
    const lines = problems.map((p) => p.problem);
    super(lines.length === 1 ? (lines[0] as string) : `Invalid metric options:\n- ${lines.join('\n- ')}`);
  }
}

/** Metrics that depend on each other in a loop; `cycle` is the path, first element repeated at the end. */
export class DependencyCycleError extends MceError {
  override readonly name = 'DependencyCycleError';
  readonly kind = 'bad-input' as const;
  constructor(readonly cycle: readonly string[]) {
    super(`Dependency cycle between metrics: ${cycle.join(' -> ')}`);
  }
}

/** A metric declares `dependsOn` a metric that is not registered. */
export class UnknownDependencyError extends MceError {
  override readonly name = 'UnknownDependencyError';
  readonly kind = 'bad-input' as const;
  constructor(
    readonly metric: string,
    readonly dependency: string,
  ) {
    super(`Metric "${metric}" depends on "${dependency}", which is not registered`);
  }
}

/** An id as an error echoes it: up to 200 characters, since a 100 KB id must not come back whole in every error. */
export function shownId(id: string): string {
  return id.length > 200 ? `${id.slice(0, 200)}… (${id.length} characters)` : id;
}

/** Sessions asked for that the data provider does not have. */
export class SessionNotFoundError extends MceError {
  override readonly name = 'SessionNotFoundError';
  readonly kind = 'not-found' as const;
  constructor(readonly sessionIds: readonly string[]) {
    super(`Session${sessionIds.length > 1 ? 's' : ''} not found: ${sessionIds.map(shownId).join(', ')}`);
  }
}

/**
 * A bad engine option value. `source` names where it came from (an option or an environment variable) and `expected`
 * what it must be, so a caller with its own error wording (the client's EnvError) can say the same thing.
 */
export class EngineOptionError extends MceError {
  override readonly name = 'EngineOptionError';
  readonly kind = 'bad-input' as const;
  constructor(
    readonly source: string,
    readonly expected: string,
    readonly value: string | number,
  ) {
    super(`${source} must be ${expected} (got "${value}")`);
  }
}
