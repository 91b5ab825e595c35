/**
 * `@mce/provider-opik`: Opik's evaluation metrics (`opik:Hallucination`, …) on MAS sessions, computed by the opik
 * package with mce's judge; every judge call counted and priced by mce.
 */
import type { Metric, MetricProvider } from '@mce/core';
import { defaultJudge, inputOf, libraryMetric, outputOf, packageVersion, retrievalContextOf, type Judge, type JudgedElement } from '@mce/provider-native';
import { OPIK_GEVAL_JUDGES, scoreWithGEval, type GEvalDefinition } from './geval-judges.js';
import { heuristicMetric } from './heuristic-metric.js';
import { OPIK_HEURISTICS } from './heuristics.js';
import { OPIK_LIBRARY, OPIK_METRICS, OPIK_PROVIDER, opikOptions, ifPresent, scoreWithOpik, type OpikDefinition, type OpikInputs } from './metrics.js';

export { OPIK_LIBRARY, OPIK_METRICS, OPIK_PROVIDER } from './metrics.js';
export { OPIK_GEVAL_JUDGES } from './geval-judges.js';
export { MetricOptionError, OPIK_HEURISTICS } from './heuristics.js';

const REQUIREMENT: Record<string, string> = { input: 'userInput', output: 'finalResponse', context: 'toolCalls.result (context)' };

function inputsOf(definition: OpikDefinition, id: string, target: JudgedElement): OpikInputs {
  const inputs: OpikInputs = {};
  if (definition.needs.includes('input')) inputs.input = inputOf(id, target);
  if (definition.needs.includes('output')) inputs.output = outputOf(id, target);
  if (definition.optionalContext) {
    const context = ifPresent(() => retrievalContextOf(id, target));
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

/** A G-Eval judge: one text (task, trajectory, answer, … as the judge's rubric reads them) within the judge's transcript budget. */
function gevalMetric(definition: GEvalDefinition, judge?: () => Judge): Metric {
  const id = `${OPIK_PROVIDER}:${definition.name}`;
  const budget = () => (judge ?? defaultJudge)().config.transcriptTokens;
  return libraryMetric(
    {
      provider: OPIK_PROVIDER,
      name: definition.name,
      levels: definition.levels,
      description: `${definition.description} (Opik ${definition.name}: a 0-10 G-Eval score divided by 10, computed by ${OPIK_LIBRARY})`,
      requirements: definition.requirements,
      valueRange: '0.0-1.0',
      options: ['model', ...(definition.options ?? [])],
      library: OPIK_LIBRARY,
      inputs: (target, options) => ({ output: definition.text(id, target, budget(), options) }),
      score: (inputs, call) => scoreWithGEval(definition, inputs.output, call),
    },
    judge,
  );
}

/** The provider's metrics; `judge`: another judge than the default one (tests, embedding). */
export function opikMetrics(judge?: () => Judge): readonly Metric[] {
  return Object.freeze([
    ...OPIK_METRICS.map((d) => opikMetric(d, judge)),
    ...OPIK_HEURISTICS.map(heuristicMetric),
    ...OPIK_GEVAL_JUDGES.map((d) => gevalMetric(d, judge)),
  ]);
}

const METRICS = opikMetrics();

export const opikProvider: MetricProvider = Object.freeze({
  name: OPIK_PROVIDER,
  description: `Opik metrics (hallucination, answer relevance, moderation, usefulness; IsJson, Contains, RegexMatch, ExactMatch; agent task completion and tool correctness, QA relevance, dialogue helpfulness, prompt uncertainty, bias and compliance-risk judges), computed by ${OPIK_LIBRARY}`,
  version: packageVersion(new URL('../package.json', import.meta.url)),
  metrics: () => METRICS,
});

export { opikProvider as provider };
export default opikProvider;
