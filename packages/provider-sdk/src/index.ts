/**
 * `@mce/provider-sdk`: metrics declared in mce_config.yaml (`sdk_metrics:`) without code, selected as `sdk:<name>`:
 * judged ones scored by mce's judge (G-Eval style: criteria or evaluation steps, a 1–5 rubric, the inputs shown),
 * deterministic ones computed from a small safe expression language over an element's fields and children.
 *
 * mce's configuration loader calls `configure` with the file's sections; used alone, `sdkProvider(entries)` builds
 * the provider from a list.
 */
import type { MetricProvider } from '@mce/core';
import { packageVersion, type JudgeSource } from '@mce/provider-native';
import { SDK_SECTION, defineSdkMetrics } from './define-metrics.js';
import { SDK_PROVIDER } from './provider-name.js';

export { JUDGED_INPUTS, SdkMetricSchema, type JudgedInput, type SdkMetricConfig } from './config-schema.js';
export { SDK_SECTION, SdkConfigError, defineSdkMetrics, type SdkConfigProblem } from './define-metrics.js';
export { SDK_PROVIDER } from './provider-name.js';
export { judgedRubric } from './judged/judged-metric.js';
export { ExpressionError, type Expression } from './expression/ast.js';
export { parseExpression } from './expression/parser.js';
export { checkExpression } from './expression/check.js';
export { EvaluationError, evaluate } from './expression/evaluate.js';
export { FIELDS } from './expression/fields.js';
export { FUNCTIONS } from './expression/functions.js';

/** The provider of the metrics `entries` declare (the `sdk_metrics:` list); throws SdkConfigError when one is bad. */
export function sdkProvider(entries: unknown, judge?: JudgeSource): MetricProvider {
  const metrics = Object.freeze(defineSdkMetrics(entries, judge));
  return Object.freeze({
    name: SDK_PROVIDER,
    description: 'Metrics declared in mce_config.yaml (sdk_metrics): judged by mce\'s judge, or computed from an expression',
    version: packageVersion(new URL('../package.json', import.meta.url)),
    jsonDetails: true,
    metrics: () => metrics,
  });
}

/** Called by mce with the sections of mce_config.yaml (raw, as written): the provider of its `sdk_metrics`. */
export function configure(sections: Readonly<Record<string, unknown>>): MetricProvider {
  return sdkProvider(sections[SDK_SECTION]);
}

/** With no configuration: the provider, with no metric (mce loads it through `configure`). */
const unconfigured = sdkProvider([]);
export { unconfigured as provider };
export default unconfigured;
