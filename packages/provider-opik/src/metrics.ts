/**
 * Opik's LLM-judged metrics mapped onto the MAS ontology. The library's model is a Vercel AI SDK chat model on
 * mce's judge (`createOpenAI({ baseURL, apiKey, fetch })`), its `fetch` the counting one.
 */
import type { OntologyLevel } from '@mce/core';
import { MissingJudgeInputError, type LibraryCall, type LibraryScore } from '@mce/provider-native';
import { judgeOptions, opikClass, type OpikMetric } from './judge-model.js';
import { explained } from './library-error.js';

export { OPIK_LIBRARY, OPIK_PROVIDER } from './names.js';

const ANSWER_LEVELS: readonly OntologyLevel[] = ['Session', 'MASCall', 'AgentCall', 'LLMCall'];
const SCOPE_LEVELS: readonly OntologyLevel[] = ['Session', 'MASCall', 'AgentCall'];

export type OpikInput = 'input' | 'output' | 'context';

export interface OpikInputs {
  input?: string;
  output?: string;
  context?: string[];
}

export interface OpikDefinition {
  name: string;
  className: 'Hallucination' | 'AnswerRelevance' | 'Moderation' | 'Usefulness';
  description: string;
  levels: readonly OntologyLevel[];
  needs: readonly OpikInput[];
  /** Read when the element has it (the tool results), left out otherwise. */
  optionalContext?: boolean;
  /** Lower is better (Hallucination, Moderation). */
  lowerIsBetter?: boolean;
  options?: readonly string[];
}

export const OPIK_METRICS: readonly OpikDefinition[] = [
  {
    name: 'Hallucination', className: 'Hallucination', levels: SCOPE_LEVELS, needs: ['input', 'output'], optionalContext: true, lowerIsBetter: true,
    description: '1 when the response introduces or contradicts information (against the tool results when there are any), else 0; lower is better.',
  },
  {
    name: 'AnswerRelevance', className: 'AnswerRelevance', levels: SCOPE_LEVELS, needs: ['input', 'output'], optionalContext: true,
    options: ['require_context'],
    description: 'How relevant the response is to the input, given the tool results as context (0-1).',
  },
  {
    name: 'Moderation', className: 'Moderation', levels: ANSWER_LEVELS, needs: ['output'], lowerIsBetter: true,
    description: 'How unsafe the response is (0 safe … 1 clearly violating); lower is better.',
  },
  {
    name: 'Usefulness', className: 'Usefulness', levels: ANSWER_LEVELS, needs: ['input', 'output'],
    description: 'How useful the response is for the input: helpfulness, relevance, accuracy, depth (0-1).',
  },
];

export function opikOptions(definition: OpikDefinition): string[] {
  return ['model', ...(definition.options ?? [])];
}


export async function scoreWithOpik(definition: OpikDefinition, inputs: OpikInputs, call: LibraryCall): Promise<LibraryScore> {
  const Metric = opikClass<OpikMetric>(definition.className);
  const requireContext = call.options.require_context;
  const metric = new Metric({ ...judgeOptions(call), ...(typeof requireContext === 'boolean' ? { requireContext } : {}) });
  const result = await metric.score({ ...inputs }).catch((error: unknown) => {
    throw explained(error);
  });
  return {
    value: result.value,
    ...(result.reason ? { reasoning: result.reason } : {}),
    details: { ...(definition.lowerIsBetter ? { lowerIsBetter: true } : {}), ...(inputs.context ? { contextItems: inputs.context.length } : {}) },
  };
}

/** An input a metric reads when present (the context: when a tool in scope returned a result): absent, not a failure, otherwise. */
export function ifPresent<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    if (error instanceof MissingJudgeInputError) return undefined;
    throw error;
  }
}
