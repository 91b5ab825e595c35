/**
 * Metric names as the telemetry-hub API accepts them, and the mce metric each one means. docs/legacy.md lists the
 * same table with the differences of value; a test keeps the two in step.
 */

/** What a legacy name resolves to before the registry is asked. */
export type LegacyTarget =
  /** An mce metric (a bare name or `provider:name`) looked up in the client's registry. */
  | { kind: 'mce'; name: string }
  /** Computed by this package over the whole batch (the old population level). */
  | { kind: 'population'; name: 'GraphDeterminismScore' }
  /** A name the old engine had and mce does not compute: `reason` says what to use instead. */
  | { kind: 'unsupported'; reason: string };

/**
 * The old native metrics (`NATIVE_METRICS`) and the native plugin's (`mce_metrics_plugin`), by their old names. The
 * judged ones keep their names in mce; `Cycles` is CyclesCount.
 */
export const LEGACY_NAMES: Readonly<Record<string, LegacyTarget>> = Object.freeze({
  AgentToAgentInteractions: { kind: 'mce', name: 'AgentToAgentInteractions' },
  AgentToToolInteractions: { kind: 'mce', name: 'AgentToToolInteractions' },
  Cycles: { kind: 'mce', name: 'CyclesCount' },
  CyclesCount: { kind: 'mce', name: 'CyclesCount' },
  ToolErrorRate: { kind: 'mce', name: 'ToolErrorRate' },
  ToolUtilizationAccuracy: { kind: 'mce', name: 'ToolUtilizationAccuracy' },
  GraphDeterminismScore: { kind: 'population', name: 'GraphDeterminismScore' },
  WorkflowEfficiency: { kind: 'mce', name: 'WorkflowEfficiency' },
  ComponentConflictRate: { kind: 'mce', name: 'ComponentConflictRate' },
  Consistency: { kind: 'mce', name: 'Consistency' },
  ContextPreservation: { kind: 'mce', name: 'ContextPreservation' },
  GoalSuccessRate: { kind: 'mce', name: 'GoalSuccessRate' },
  Groundedness: { kind: 'mce', name: 'Groundedness' },
  InformationRetention: { kind: 'mce', name: 'InformationRetention' },
  IntentRecognitionAccuracy: { kind: 'mce', name: 'IntentRecognitionAccuracy' },
  ResponseCompleteness: { kind: 'mce', name: 'ResponseCompleteness' },
  WorkflowCohesionIndex: { kind: 'mce', name: 'WorkflowCohesionIndex' },
  PassiveEvalApp: {
    kind: 'unsupported',
    reason: 'PassiveEvalApp is not computed by mce: ask for its parts instead (LLMCallCount, ToolCallCount, LLMErrorRate, ToolErrorRate, TotalTokens, Duration)',
  },
  PassiveEvalAgents: {
    kind: 'unsupported',
    reason: 'PassiveEvalAgents is not computed by mce: ask for the same metrics at the agent level (computation_level ["agent"])',
  },
  LLMAverageConfidence: { kind: 'unsupported', reason: 'LLMAverageConfidence is not computed by mce (no trace it reads records log-probabilities)' },
  LLMMinimumConfidence: { kind: 'unsupported', reason: 'LLMMinimumConfidence is not computed by mce (no trace it reads records log-probabilities)' },
  LLMMaximumConfidence: { kind: 'unsupported', reason: 'LLMMaximumConfidence is not computed by mce (no trace it reads records log-probabilities)' },
});

/** The adapter prefixes and the mce provider package each resolves to. */
export const ADAPTER_PACKAGES: Readonly<Record<string, string>> = Object.freeze({
  deepeval: '@mce/provider-deepeval',
  opik: '@mce/provider-opik',
  ragas: '@mce/provider-ragas',
});

/**
 * The target of a legacy name. As the old engine did, a dotted name whose last segment is an old native or plugin name
 * means that metric (`x.Groundedness` is Groundedness); other `deepeval.` / `opik.` / `ragas.` names are left to the
 * registry, which reads the telemetry-hub spellings (`deepeval.AnswerRelevancyMetric`, `ragas.X.f1`). Anything else
 * is looked up as an mce name, so mce's own metrics (`Duration`, `deepeval:Bias`) are accepted too.
 */
export function resolveLegacyName(name: string): LegacyTarget {
  const known = LEGACY_NAMES[name];
  if (known) return known;
  const last = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : undefined;
  const byLast = last !== undefined ? LEGACY_NAMES[last] : undefined;
  if (byLast && !(adapterOf(name) && /^(f1|precision|recall)$/.test(last ?? ''))) return byLast;
  return { kind: 'mce', name };
}

/** The adapter prefix of a name (`deepeval` of `deepeval.BiasMetric`), if it has one. */
export function adapterOf(name: string): string | undefined {
  const prefix = name.split('.')[0]?.toLowerCase();
  return prefix !== undefined && name.includes('.') && prefix in ADAPTER_PACKAGES ? prefix : undefined;
}

/** Why a name resolved to nothing in the registry: the package to install for an adapter name, else unknown. */
export function unknownMetricMessage(name: string, installHint: string | undefined): string {
  if (installHint) return `Metric ${name} could not be resolved${installHint}`;
  const adapter = adapterOf(name);
  if (adapter) {
    const pkg = ADAPTER_PACKAGES[adapter];
    return `Metric ${name} could not be resolved: it is no metric of ${pkg} (when ${pkg} is not installed: npm install ${pkg}; its metrics are listed by GET /metrics)`;
  }
  return `Metric ${name} could not be resolved: no native, plugin or adapter metric has this name`;
}
