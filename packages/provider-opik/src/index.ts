/**
 * `@mce/provider-opik`: Opik's evaluation metrics (`opik:Hallucination`, …) on MAS sessions, computed by the opik
 * package with mce's judge; every judge call counted and priced by mce.
 */
import type { Metric, MetricProvider } from '@mce/core';
import { inputOf, libraryMetric, outputOf, packageVersion, retrievalContextOf, type Judge, type JudgedElement } from '@mce/provider-native';
import { OPIK_LIBRARY, OPIK_METRICS, OPIK_PROVIDER, opikOptions, optionalContext, scoreWithOpik, type OpikDefinition, type OpikInputs } from './metrics.js';

export { OPIK_LIBRARY, OPIK_METRICS, OPIK_PROVIDER } from './metrics.js';

const REQUIREMENT: Record<string, string> = { input: 'userInput', output: 'finalResponse', context: 'toolCalls.result (context)' };

function inputsOf(definition: OpikDefinition, id: string, target: JudgedElement): OpikInputs {
  const inputs: OpikInputs = {};
  if (definition.needs.includes('input')) inputs.input = inputOf(id, target);
  if (definition.needs.includes('output')) inputs.output = outputOf(id, target);
  if (definition.optionalContext) {
    const context = optionalContext(() => retrievalContextOf(id, target));
    if (context) inputs.context = context;
  }
  return inputs;
}

function opikMetric(definition: OpikDefinition, judge?: () => Judge): Metric {
  const id = `${OPIK_PROVIDER}:${definition.name}`;
  return libraryMetric(
    {
      provider: OPIK_PROVIDER,
      name: definition.name,
      levels: definition.levels,
      description: `${definition.description} (Opik ${definition.className}, computed by ${OPIK_LIBRARY})`,
      requirements: [...definition.needs, ...(definition.optionalContext ? ['context'] : [])].map((n) => REQUIREMENT[n] ?? n),
      valueRange: '0.0-1.0',
      options: opikOptions(definition),
      library: OPIK_LIBRARY,
      inputs: (target) => inputsOf(definition, id, target),
      score: (inputs, call) => scoreWithOpik(definition, inputs, call),
    },
    judge,
  );
}

/** The provider's metrics; `judge`: another judge than the default one (tests, embedding). */
export function opikMetrics(judge?: () => Judge): readonly Metric[] {
  return Object.freeze(OPIK_METRICS.map((d) => opikMetric(d, judge)));
}

const METRICS = opikMetrics();

export const opikProvider: MetricProvider = Object.freeze({
  name: OPIK_PROVIDER,
  description: `Opik metrics (hallucination, answer relevance, moderation, usefulness), computed by ${OPIK_LIBRARY}`,
  version: packageVersion(new URL('../package.json', import.meta.url)),
  metrics: () => METRICS,
});

export { opikProvider as provider };
export default opikProvider;
