/**
 * The contract a metric provider meets, written out without depending on @mce/core: the same shapes core's
 * `MetricProvider` and `Metric` have (TypeScript compares shapes, so what these describe is what core accepts). Only
 * the fields a provider reads or returns are typed; an element carries more than `HelperElement` names (read the
 * rest by casting to your own type: an index signature here would make core's element types unassignable).
 */

export type Level = 'Session' | 'MASCall' | 'AgentCall' | 'TaskCall' | 'LLMCall' | 'ToolCall';
export type Nature = 'deterministic' | 'llm-judged' | 'aggregate';

/** One element of a session (the session itself or one of its calls): what every level has, and the rest as found. */
export interface HelperElement {
  readonly id: string;
  readonly startTime?: number;
  readonly endTime?: number;
}

/** The session a metric runs in: its calls by level. */
export interface HelperSession extends HelperElement {
  readonly masCalls: readonly HelperElement[];
  readonly agentCalls: readonly HelperElement[];
  readonly taskCalls: readonly HelperElement[];
  readonly llmCalls: readonly HelperElement[];
  readonly toolCalls: readonly HelperElement[];
}

export interface MetricMetadata {
  name: string;
  provider: string;
  levels: readonly Level[];
  nature: Nature;
  unit: string;
  valueRange: string;
  description: string;
  requirements: readonly string[];
  dependsOn: readonly string[];
  options?: readonly string[];
}

/** A score, with optional reasoning and JSON details. */
export interface MetricValue {
  value: number;
  reasoning?: string;
  details?: Record<string, unknown>;
}

/** The metric does not apply to this element: reported as skipped, never scored. */
export interface MetricSkip {
  skipped: string;
}

export type MetricOutcome = MetricValue | MetricSkip;

export interface MetricContext {
  session: HelperSession;
  level: Level;
  /** The metric's options from the configuration, snake_case. */
  options: Readonly<Record<string, unknown>>;
  /** Results of the metrics named in `dependsOn`, computed earlier in the run. */
  results: { get(name: string, elementId: string, level?: Level): { result: number } | undefined };
  signal?: AbortSignal;
}

export interface Metric {
  readonly metadata: MetricMetadata;
  compute(element: HelperElement, ctx: MetricContext): MetricOutcome | Promise<MetricOutcome>;
}

export interface MetricProvider {
  readonly name: string;
  readonly description: string;
  readonly version: string;
  metrics(): readonly Metric[];
}
