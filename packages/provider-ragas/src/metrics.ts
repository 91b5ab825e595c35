/**
 * The Ragas metrics, computed by the Ragas family of `autoevals` (a TypeScript port of Ragas' prompts) with mce's
 * judge. Each entry says which MAS inputs it reads; the library receives them as Ragas names them.
 */
import { createRequire } from 'node:module';
import type * as Autoevals from 'autoevals';
import type { Score } from 'autoevals';
import type { OntologyLevel } from '@mce/core';
import type { LibraryCall, LibraryInput, LibraryScore } from '@mce/provider-native';

const require = createRequire(import.meta.url);
let loaded: typeof Autoevals | undefined;
/** autoevals, loaded at the first computation: every mce command discovers this package, few compute with it. */
function autoevals(): typeof Autoevals {
  loaded ??= require('autoevals') as typeof Autoevals;
  return loaded;
}

export const RAGAS_PROVIDER = 'ragas';
/** The implementation and version computing these metrics (part of every cache key). */
export const RAGAS_LIBRARY = 'autoevals@0.3.0';
export const RAGAS_LEVELS: readonly OntologyLevel[] = ['Session', 'MASCall', 'AgentCall'];
const DEFAULT_EMBEDDING_MODEL = 'text-embedding-3-small';

export interface RagasInputs {
  input?: string;
  output?: string;
  context?: string[];
  reference?: string;
}

export interface RagasDefinition {
  name: string;
  description: string;
  needs: readonly LibraryInput[];
  /** Embedding calls too (the `embedding_model` option). */
  embeds: boolean;
  /** Extra options the metric reads (beside `model`). */
  options?: readonly string[];
  run(args: Record<string, unknown>, call: LibraryCall): Score | Promise<Score>;
}

const embeddingModel = (call: LibraryCall): string => {
  const option = call.options.embedding_model;
  return typeof option === 'string' && option.trim() ? option.trim() : DEFAULT_EMBEDDING_MODEL;
};

/** A list the judge returned empty leaves the ratio undefined (Python Ragas: NaN); never a 0. */
function requireNonEmpty(list: unknown, what: string): void {
  if (Array.isArray(list) && list.length === 0) throw new Error(`the judge extracted no ${what}: the score is undefined`);
}

export const RAGAS_METRICS: readonly RagasDefinition[] = [
  {
    name: 'Faithfulness',
    description: 'Share of the statements of the response that the retrieval context (tool results) supports.',
    needs: ['input', 'output', 'context'],
    embeds: false,
    run: async (args) => {
      const score = await autoevals().Faithfulness(args as never);
      requireNonEmpty((score.metadata as { faithfulness?: unknown } | undefined)?.faithfulness, 'statements');
      return score;
    },
  },
  {
    name: 'AnswerRelevancy',
    description:
      'Mean embedding similarity of the user input to questions the judge generates from the response (0 when noncommittal).',
    needs: ['input', 'output', 'context'],
    embeds: true,
    options: ['strictness', 'embedding_model'],
    run: (args, call) => {
      const strictness = call.options.strictness;
      return autoevals().AnswerRelevancy({
        ...args,
        embeddingModel: embeddingModel(call),
        ...(typeof strictness === 'number' ? { strictness } : {}),
      } as never);
    },
  },
  {
    name: 'ContextPrecision',
    description: 'Verdict (0 or 1) whether the retrieval context was useful in arriving at the reference answer.',
    needs: ['input', 'context', 'reference'],
    embeds: false,
    run: (args) => autoevals().ContextPrecision(args as never),
  },
  {
    name: 'ContextRecall',
    description: 'Share of the sentences of the reference answer that can be attributed to the retrieval context.',
    needs: ['input', 'context', 'reference'],
    embeds: false,
    run: async (args) => {
      const score = await autoevals().ContextRecall(args as never);
      requireNonEmpty((score.metadata as { statements?: unknown } | undefined)?.statements, 'statements');
      return score;
    },
  },
  {
    name: 'ContextRelevancy',
    description: 'Share of the retrieval context (in characters) made of sentences the judge finds relevant to the input.',
    needs: ['input', 'context'],
    embeds: false,
    run: (args) => autoevals().ContextRelevancy(args as never),
  },
  {
    name: 'AnswerCorrectness',
    description:
      'Weighted mean of the F1 of the response statements against the reference answer (0.75) and their embedding similarity (0.25).',
    needs: ['input', 'output', 'reference'],
    embeds: true,
    options: ['embedding_model', 'factuality_weight', 'answer_similarity_weight'],
    run: (args, call) => {
      const weight = (name: string) => (typeof call.options[name] === 'number' ? (call.options[name] as number) : undefined);
      const factualityWeight = weight('factuality_weight');
      const answerSimilarityWeight = weight('answer_similarity_weight');
      return autoevals().AnswerCorrectness({
        ...args,
        embeddingModel: embeddingModel(call),
        // The library calls its similarity scorer without the client: bound here, or it would build its own.
        answerSimilarity: autoevals().AnswerSimilarity.partial({ client: call.client } as never),
        ...(factualityWeight !== undefined ? { factualityWeight } : {}),
        ...(answerSimilarityWeight !== undefined ? { answerSimilarityWeight } : {}),
      } as never);
    },
  },
  {
    name: 'AnswerSimilarity',
    description: 'Cosine similarity of the embeddings of the response and the reference answer.',
    needs: ['output', 'reference'],
    embeds: true,
    options: ['embedding_model'],
    // AnswerSimilarity's `model` is the embedding model.
    run: (args, call) => autoevals().AnswerSimilarity({ ...args, model: embeddingModel(call) } as never),
  },
];

/** The library's arguments from the MAS inputs and the counted client. */
export function ragasArgs(inputs: RagasInputs, call: LibraryCall): Record<string, unknown> {
  const maxTokens = call.judge.config.maxTokens;
  return {
    ...(inputs.input !== undefined ? { input: inputs.input } : {}),
    ...(inputs.output !== undefined ? { output: inputs.output } : {}),
    ...(inputs.context !== undefined ? { context: inputs.context } : {}),
    ...(inputs.reference !== undefined ? { expected: inputs.reference } : {}),
    client: call.client,
    model: call.model,
    temperature: call.judge.config.temperature ?? 0,
    maxTokens,
  };
}

/** The library's Score as mce's value: a missing score or a reported error fails the computation. */
export function fromScore(score: Score): LibraryScore {
  if (score.error !== undefined && score.error !== null) throw new Error(String(score.error));
  if (typeof score.score !== 'number') throw new Error(`the library returned no score (${String(score.score)})`);
  return { value: score.score, details: { ...(score.metadata ?? {}) } };
}
