/**
 * `@mce/provider-deepeval`: DeepEval's metrics (`deepeval:Faithfulness`, …) on MAS sessions, computed by the
 * TypeScript deepeval package with mce's judge; every judge call counted and priced by mce.
 */
import type { Metric, MetricProvider } from '@mce/core';
import { libraryMetric, packageVersion, type Judge } from '@mce/provider-native';
import { DEEPEVAL_LIBRARY, DEEPEVAL_METRICS, DEEPEVAL_PROVIDER, deepevalOptions, measure, type DeepEvalDefinition } from './metrics.js';
import { testCaseData } from './test-case.js';

export { DEEPEVAL_LIBRARY, DEEPEVAL_METRICS, DEEPEVAL_PROVIDER } from './metrics.js';
export { telemetryDisabled } from './library.js';

const REQUIREMENT: Record<string, string> = {
  input: 'userInput',
  actualOutput: 'finalResponse',
  retrievalContext: 'toolCalls.result (retrieval context)',
  context: 'toolCalls.result (context)',
  expectedOutput: 'reference (option or attribute)',
  toolsCalled: 'toolCalls',
  expectedTools: 'expected_tools (option)',
  availableTools: 'llmCalls.toolDefinitions',
  mcp: 'mcpServers, toolCalls.mcp',
};

function deepevalMetric(definition: DeepEvalDefinition, judge?: () => Judge): Metric {
  const id = `${DEEPEVAL_PROVIDER}:${definition.name}`;
  return libraryMetric(
    {
      provider: DEEPEVAL_PROVIDER,
      name: definition.name,
      levels: definition.levels,
      description: `${definition.description} (DeepEval ${definition.className}, computed by ${DEEPEVAL_LIBRARY})`,
      requirements: definition.needs.map((n) => REQUIREMENT[n] ?? n),
      valueRange: '0.0-1.0',
      options: deepevalOptions(definition),
      library: DEEPEVAL_LIBRARY,
      inputs: (target, options) => testCaseData(id, definition.needs, target, options),
      score: (data, call) => measure(definition, data, call),
    },
    judge,
  );
}

/** The provider's metrics; `judge`: another judge than the default one (tests, embedding). */
export function deepevalMetrics(judge?: () => Judge): readonly Metric[] {
  return Object.freeze(DEEPEVAL_METRICS.map((d) => deepevalMetric(d, judge)));
}

const METRICS = deepevalMetrics();

export const deepevalProvider: MetricProvider = Object.freeze({
  name: DEEPEVAL_PROVIDER,
  description: `DeepEval metrics (answer relevancy, faithfulness, contextual precision/recall/relevancy, hallucination, bias, toxicity, task completion, tool correctness, MCP use), computed by ${DEEPEVAL_LIBRARY}`,
  version: packageVersion(new URL('../package.json', import.meta.url)),
  metrics: () => METRICS,
});

export { deepevalProvider as provider };
export default deepevalProvider;
