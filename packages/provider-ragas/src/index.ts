/**
 * `@mce/provider-ragas`: the Ragas metrics (`ragas:Faithfulness`, …) on MAS sessions, computed by the Ragas family
 * of autoevals with mce's judge; every judge and embedding call counted and priced by mce.
 */
import type { Metric, MetricProvider } from '@mce/core';
import { libraryInputs, libraryMetric, packageVersion, type Judge } from '@mce/provider-native';
import { RAGAS_LEVELS, RAGAS_LIBRARY, RAGAS_METRICS, RAGAS_PROVIDER, fromScore, ragasArgs, type RagasDefinition } from './metrics.js';

export { RAGAS_LIBRARY, RAGAS_METRICS, RAGAS_PROVIDER } from './metrics.js';

const REQUIREMENT: Record<string, string> = {
  input: 'userInput',
  output: 'finalResponse',
  context: 'toolCalls.result (retrieval context)',
  reference: 'reference (option or attribute)',
};

function ragasMetric(definition: RagasDefinition, judge?: () => Judge): Metric {
  return libraryMetric(
    {
      provider: RAGAS_PROVIDER,
      name: definition.name,
      levels: RAGAS_LEVELS,
      description: `${definition.description} (Ragas, computed by ${RAGAS_LIBRARY})`,
      requirements: definition.needs.map((n) => REQUIREMENT[n] ?? n),
      valueRange: '0.0-1.0',
      options: ['model', ...(definition.needs.includes('reference') ? ['reference'] : []), ...(definition.options ?? [])],
      library: RAGAS_LIBRARY,
      inputs: (target, options) => libraryInputs(`${RAGAS_PROVIDER}:${definition.name}`, definition.needs, target, options),
      score: async (inputs, call) => fromScore(await definition.run(ragasArgs(inputs, call), call)),
    },
    judge,
  );
}

/** The provider's metrics; `judge`: another judge than the default one (tests, embedding). */
export function ragasMetrics(judge?: () => Judge): readonly Metric[] {
  return Object.freeze(RAGAS_METRICS.map((d) => ragasMetric(d, judge)));
}

const METRICS = ragasMetrics();

export const ragasProvider: MetricProvider = Object.freeze({
  name: RAGAS_PROVIDER,
  description: `Ragas metrics (faithfulness, answer relevancy, context precision/recall/relevancy, answer correctness/similarity), computed by ${RAGAS_LIBRARY}`,
  version: packageVersion(new URL('../package.json', import.meta.url)),
  metrics: () => METRICS,
});

export { ragasProvider as provider };
export default ragasProvider;
