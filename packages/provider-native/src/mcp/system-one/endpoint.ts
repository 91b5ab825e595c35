/**
 * The `endpoint:<model>` System One model: an OpenAI-compatible model used as a one-token classifier. Each question
 * is asked as a multiple choice A–D (A = clearly no … D = clearly yes) with max_tokens 1 and log-probabilities; the
 * probabilities of the four letters at that token become the four level probabilities.
 */
import type { EvaluationUsage } from '@mce/core';
import type { Judge } from '../../judge/judge.js';
import { addCallUsage, emptyCallUsage, type CallUsage, usageOfError, withUsage } from '../../judge/usage-meter.js';
import { renderInteraction } from '../render.js';
import type { SystemOneAnswer, SystemOneModel, SystemOneQuestion, SystemOneRequest, SystemOneResult } from './types.js';
import { answerFrom, QUESTION_TEXT } from './types.js';

const LETTERS = ['A', 'B', 'C', 'D'] as const;

export const ENDPOINT_SYSTEM_PROMPT = `You classify one aspect of an MCP agent interaction. Answer the question with exactly one letter:
A = clearly no, B = mostly no, C = mostly yes, D = clearly yes. Reply with the letter only.`;

export function endpointPrompt(request: SystemOneRequest, question: SystemOneQuestion): string {
  return [
    renderInteraction(request.interaction),
    ...(request.extracted ? [`Extracted facts:\n${request.extracted}`] : []),
    `Question: ${QUESTION_TEXT[question]}`,
    'A) clearly no  B) mostly no  C) mostly yes  D) clearly yes',
    'Answer:',
  ].join('\n\n');
}

/** Letter probabilities from the first token's alternatives ("A", " a", "D\n" all count); undefined if none. */
export function letterProbabilities(
  top: ReadonlyArray<{ token: string; logprob: number }> | undefined,
): [number, number, number, number] | undefined {
  if (!top?.length) return undefined;
  const p: [number, number, number, number] = [0, 0, 0, 0];
  for (const t of top) {
    const i = LETTERS.indexOf(t.token.trim().replace(/[).:]$/, '').toUpperCase() as (typeof LETTERS)[number]);
    if (i >= 0) p[i] = (p[i] ?? 0) + Math.exp(t.logprob);
  }
  return p.some((x) => x > 0) ? p : undefined;
}

export class EndpointSystemOne implements SystemOneModel {
  readonly id: string;

  /** `judge` is a judge client for the endpoint, already set to `model` (see `systemOneModelFor`). */
  constructor(
    readonly model: string,
    private readonly judge: () => Judge,
  ) {
    this.id = `endpoint:${model}`;
  }

  private async ask(request: SystemOneRequest, question: SystemOneQuestion, signal?: AbortSignal) {
    const completion = await this.judge().complete({
      messages: [
        { role: 'system', content: ENDPOINT_SYSTEM_PROMPT },
        { role: 'user', content: endpointPrompt(request, question) },
      ],
      maxTokens: 1,
      temperature: 0,
      logprobs: true,
      ...(signal ? { signal } : {}),
    });
    const first = completion.logprobs?.[0];
    let probs = letterProbabilities(first?.top_logprobs ?? (first ? [first] : undefined));
    if (!probs) {
      // No log-probabilities: the letter itself, taken as certain.
      const i = LETTERS.indexOf(completion.text.trim().charAt(0).toUpperCase() as (typeof LETTERS)[number]);
      if (i < 0) throw withUsage(new Error(`${this.id}: reply ${JSON.stringify(completion.text)} is not one of A–D`), completion.usage);
      probs = [0, 0, 0, 0];
      probs[i] = 1;
    }
    return { answer: answerFrom(question, probs), usage: completion.usage, usageReported: completion.usageReported };
  }

  async answer(request: SystemOneRequest): Promise<SystemOneResult> {
    const settled = await Promise.allSettled(request.questions.map((q) => this.ask(request, q, request.signal)));
    // Every question's call is counted, answered or not: a failure carries the usage of all of them.
    let usage: CallUsage = emptyCallUsage();
    for (const s of settled) {
      const used = s.status === 'fulfilled' ? s.value.usage : (usageOfError(s.reason) as CallUsage | undefined);
      if (used) usage = addCallUsage(usage, used);
    }
    const priced: EvaluationUsage = await this.judge().evaluationUsage(usage);
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw withUsage(failed.reason, priced);
    const fulfilled = settled.map((s) => (s as PromiseFulfilledResult<{ answer: SystemOneAnswer; usageReported: boolean }>).value);
    return { answers: fulfilled.map((f) => f.answer), model: this.id, usage: priced, usageReported: fulfilled.every((f) => f.usageReported) };
  }
}
