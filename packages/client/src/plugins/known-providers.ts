/**
 * The provider packages mce knows of but does not depend on at run time: when one is not installed, its metrics are
 * still listed (`mce metric list --provider deepeval`, `--abstract`, `mce metric show deepeval:Faithfulness`) with
 * what to install, and a run selecting one says so instead of "unknown metric". Kept in step with each package's
 * catalog by a test.
 */
import { aliasKeys } from '@mce/core';

export interface KnownProvider {
  package: string;
  description: string;
  metrics: readonly string[];
  /** The metrics among them that need no LLM judge (listed as deterministic while not installed). */
  deterministic?: readonly string[];
}

export const KNOWN_PROVIDERS: Readonly<Record<string, KnownProvider>> = Object.freeze({
  ragas: {
    package: '@mce/provider-ragas',
    description: 'Ragas metrics (computed by the Ragas family of autoevals)',
    metrics: ['Faithfulness', 'AnswerRelevancy', 'ContextPrecision', 'ContextRecall', 'ContextRelevancy', 'AnswerCorrectness', 'AnswerSimilarity'],
  },
  deepeval: {
    package: '@mce/provider-deepeval',
    description: 'DeepEval metrics (computed by the deepeval package)',
    metrics: [
      'AnswerRelevancy', 'Faithfulness', 'ContextualPrecision', 'ContextualRecall', 'ContextualRelevancy', 'Hallucination',
      'Bias', 'Toxicity', 'TaskCompletion', 'ToolCorrectness', 'ArgumentCorrectness', 'MCPUse',
    ],
  },
  opik: {
    package: '@mce/provider-opik',
    description: 'Opik metrics (computed by the opik package)',
    metrics: [
      'Hallucination', 'AnswerRelevance', 'Moderation', 'Usefulness', 'IsJson', 'Contains', 'RegexMatch', 'ExactMatch',
      'AgentTaskCompletionJudge', 'AgentToolCorrectnessJudge', 'QARelevanceJudge', 'DialogueHelpfulnessJudge', 'PromptUncertaintyJudge',
      'DemographicBiasJudge', 'PoliticalBiasJudge', 'GenderBiasJudge', 'ReligiousBiasJudge', 'RegionalBiasJudge', 'ComplianceRiskJudge',
    ],
    deterministic: ['IsJson', 'Contains', 'RegexMatch', 'ExactMatch'],
  },
});

/** The known provider and metric a name means (`deepeval:Faithfulness` or `deepeval.FaithfulnessMetric`). */
export function knownMetric(name: string): { provider: string; metric: string; known: KnownProvider } | undefined {
  for (const key of [name, ...aliasKeys(name)]) {
    const [provider, metric] = key.split(':') as [string, string | undefined];
    const known = KNOWN_PROVIDERS[provider];
    if (known && metric && known.metrics.includes(metric)) return { provider, metric, known };
  }
  return undefined;
}

/** ` (… is computed by @mce/provider-x, which is not installed: npm install @mce/provider-x)`, for `registry.unknownHint`. */
export function installHint(name: string): string | undefined {
  const found = knownMetric(name);
  return found ? ` (${found.provider}:${found.metric} is computed by ${found.known.package}, which is not installed: npm install ${found.known.package})` : undefined;
}
