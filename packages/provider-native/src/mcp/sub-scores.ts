/**
 * How each MCP sub-score is decided in each eval mode: by the LLM judge (1–5 rubric), by the System One model on
 * the four-level scale after an LLM extraction (hybrid, with the LLM as fallback), or all by System One.
 */
import type { EvaluationUsage } from '@mce/core';
import type { Judge } from '../judge/judge.js';
import { usageOfError } from '../judge/usage-meter.js';
import type { MCPInteraction } from './interaction.js';
import type { McpMetricOptions } from './options.js';
import { renderInteraction, renderVisible } from './render.js';
import {
  ARGUMENT_CORRECTNESS_RUBRIC,
  EXTRACTION_SYSTEM_PROMPT,
  PRIMITIVE_USAGE_RUBRIC,
  TASK_COMPLETION_RUBRIC,
  argumentPrompt,
  primitivePrompt,
  taskPrompt,
} from './rubrics.js';
import { LEVEL_NAMES, LEVEL_VALUES, QUESTION_TEXT, type SystemOneAnswer, type SystemOneModel, type SystemOneQuestion, type SystemOneResult } from './system-one/types.js';

export type SubScoreName = 'primitiveUsage' | 'argumentCorrectness' | 'taskCompletion';

export const QUESTION_OF: Record<SubScoreName, SystemOneQuestion> = {
  primitiveUsage: 'primitives',
  argumentCorrectness: 'arguments',
  taskCompletion: 'task',
};
export const LABEL_OF: Record<SubScoreName, string> = {
  primitiveUsage: 'Primitive usage',
  argumentCorrectness: 'Argument correctness',
  taskCompletion: 'Task completion',
};
const RUBRIC_OF: Record<SubScoreName, string> = {
  primitiveUsage: PRIMITIVE_USAGE_RUBRIC,
  argumentCorrectness: ARGUMENT_CORRECTNESS_RUBRIC,
  taskCompletion: TASK_COMPLETION_RUBRIC,
};

export interface SubScore {
  name: SubScoreName;
  value: number;
  /** One line (System One) or the judge's reasoning. */
  reason: string;
  decidedBy: 'llm' | 'system_one';
  /** System One: level 0..3, its confidence and the four probabilities. */
  level?: number;
  confidence?: number;
  probabilities?: number[];
  /** LLM: the 1–5 score and how it was obtained. */
  judgeScore?: number;
  scoring?: string;
  /** Hybrid: why System One did not decide. */
  systemOneError?: string;
}

/** Rounded for reasons and details (values keep full precision). */
export const r3 = (x: number) => Math.round(x * 1000) / 1000;

export function describeAnswer(a: SystemOneAnswer): string {
  return `${LEVEL_NAMES[a.level]} (level ${a.level}/3, p=${r3(a.confidence)})`;
}

/**
 * Runs the tasks concurrently (async_mode) or one after the other. Concurrent tasks all settle before the first
 * error is thrown, so no call is left running (and every call's usage is recorded) when a computation fails.
 */
export async function runAll<T>(tasks: ReadonlyArray<() => Promise<T>>, concurrent: boolean): Promise<T[]> {
  if (concurrent) {
    const settled = await Promise.allSettled(tasks.map((t) => t()));
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
  }
  const out: T[] = [];
  for (const t of tasks) out.push(await t());
  return out;
}

/** One computation's judging state: the judge and System One model to use, usage and steps collected. */
export class McpJudging {
  readonly usages: EvaluationUsage[] = [];
  /** Set when a reply carried no usage: the summed usage then undercounts (reported as `usageReported: false`). */
  usageUnreported = false;
  readonly steps: Array<Record<string, unknown>> = [];

  constructor(
    readonly metric: string,
    readonly options: McpMetricOptions,
    private readonly judge: () => Judge,
    private readonly systemOne: () => SystemOneModel,
    private readonly signal?: AbortSignal,
    /** verbose_mode: where each step is printed as it happens (stderr by default). */
    private readonly print?: (text: string) => void,
  ) {}

  private step(entry: Record<string, unknown>): void {
    if (!this.options.verboseMode) return;
    this.steps.push(entry);
    this.print?.(verboseText(this.metric, entry));
  }

  /** Counts the calls a failed step made (the error carries their priced usage). */
  private countUsageOf(error: unknown): void {
    const usage = usageOfError(error);
    if (usage && 'costUsd' in usage) this.usages.push(usage);
  }

  private get sig() {
    return this.signal ? { signal: this.signal } : {};
  }

  /** The LLM judge decides a sub-score on its 1–5 rubric. */
  async llm(name: SubScoreName, interaction: MCPInteraction, turn?: number): Promise<SubScore> {
    const judge = this.judge();
    judge.requireModel(this.metric);
    const prompt =
      name === 'taskCompletion'
        ? taskPrompt(renderVisible(interaction))
        : name === 'primitiveUsage'
          ? primitivePrompt(renderInteraction(interaction))
          : argumentPrompt(renderInteraction(interaction));
    this.step({ step: 'llm-prompt', subScore: name, ...(turn !== undefined ? { turn } : {}), model: judge.model, rubric: RUBRIC_OF[name], prompt });
    const result = await judge.score({ metric: this.metric, rubric: RUBRIC_OF[name], prompt, ...this.sig }).catch((error: unknown) => {
      this.countUsageOf(error);
      throw error;
    });
    this.usages.push(result.usage);
    if (!result.usageReported) this.usageUnreported = true;
    this.step({ step: 'llm-judge', subScore: name, ...(turn !== undefined ? { turn } : {}), score: result.score, value: result.value, scoring: result.scoring, reasoning: result.reasoning });
    return { name, value: result.value, reason: result.reasoning, decidedBy: 'llm', judgeScore: result.score, scoring: result.scoring };
  }

  /** Hybrid, step 1: the LLM extracts what was asked and what was done (no judgement). */
  async extract(interaction: MCPInteraction, turn?: number): Promise<string> {
    const judge = this.judge();
    judge.requireModel(this.metric);
    const prompt = renderInteraction(interaction);
    this.step({ step: 'llm-prompt', purpose: 'extraction', ...(turn !== undefined ? { turn } : {}), model: judge.model, system: EXTRACTION_SYSTEM_PROMPT, prompt });
    const completion = await judge.complete({
      messages: [
        { role: 'system', content: EXTRACTION_SYSTEM_PROMPT },
        { role: 'user', content: prompt },
      ],
      temperature: 0,
      logprobs: false,
      ...this.sig,
    });
    this.usages.push(await judge.evaluationUsage(completion.usage));
    if (!completion.usageReported) this.usageUnreported = true;
    const extracted = extractedText(completion.text);
    this.step({ step: 'llm-extraction', ...(turn !== undefined ? { turn } : {}), extracted });
    return extracted;
  }

  /** System One answers questions about an interaction (usage of an endpoint model counted). */
  async ask(interaction: MCPInteraction, questions: readonly SystemOneQuestion[], extracted?: string, turn?: number): Promise<SystemOneResult> {
    const model = this.systemOne();
    const result = await model
      .answer({
        interaction,
        questions,
        ...(extracted ? { extracted } : {}),
        ...(this.options.verboseMode ? { explain: true } : {}),
        ...this.sig,
      })
      .catch((error: unknown) => {
        this.countUsageOf(error); // hybrid falls back to the judge: the System One calls were still made
        throw error;
      });
    if (result.usage) this.usages.push(result.usage);
    if (result.usageReported === false) this.usageUnreported = true;
    this.step({
      step: 'system-one',
      model: result.model,
      ...(turn !== undefined ? { turn } : {}),
      answers: result.answers.map((a) => ({
        question: a.question,
        text: QUESTION_TEXT[a.question],
        level: a.level,
        answer: LEVEL_NAMES[a.level],
        confidence: r3(a.confidence),
        value: r3(a.value),
        probabilities: a.probabilities.map(r3),
      })),
      ...(result.evidence ? { evidence: result.evidence } : {}),
    });
    return result;
  }

  /** Hybrid: LLM extraction once, then System One decides each sub-score; the LLM decides any it failed on. */
  async hybrid(names: readonly SubScoreName[], interaction: MCPInteraction, turn?: number): Promise<SubScore[]> {
    const extracted = await this.extract(interaction, turn);
    return runAll(
      names.map((name) => async (): Promise<SubScore> => {
        let failure: string;
        try {
          const { answers, model } = await this.ask(interaction, [QUESTION_OF[name]], extracted, turn);
          const a = answers[0];
          if (!a) throw new Error(`${model} returned no answer`);
          return {
            name,
            // Hybrid decides on the four-level scale itself: the chosen level (0, 1/3, 2/3, 1), not an expectation.
            value: LEVEL_VALUES[a.level],
            reason: `${LABEL_OF[name]}: level ${a.level}/3 (${LEVEL_NAMES[a.level]}), confidence ${r3(a.confidence)} — System One ${model}`,
            decidedBy: 'system_one',
            level: a.level,
            confidence: a.confidence,
            probabilities: a.probabilities,
          };
        } catch (error) {
          failure = error instanceof Error ? error.message : String(error);
        }
        this.step({ step: 'system-one-failed', subScore: name, ...(turn !== undefined ? { turn } : {}), error: failure });
        const decided = await this.llm(name, interaction, turn);
        return { ...decided, systemOneError: failure };
      }),
      this.options.asyncMode,
    );
  }

  /** The sub-scores of one interaction in `llm` or `hybrid` mode. */
  subScores(mode: 'llm' | 'hybrid', names: readonly SubScoreName[], interaction: MCPInteraction, turn?: number): Promise<SubScore[]> {
    if (mode === 'hybrid') return this.hybrid(names, interaction, turn);
    return runAll(names.map((n) => () => this.llm(n, interaction, turn)), this.options.asyncMode);
  }
}

/** The extraction reply as compact text: the JSON fields when it parses, the raw reply otherwise. */
export function extractedText(reply: string): string {
  const json = /\{[\s\S]*\}/.exec(reply)?.[0];
  if (json) {
    try {
      const parsed = JSON.parse(json) as Record<string, unknown>;
      const parts = ['asked', 'done', 'needed']
        .filter((k) => typeof parsed[k] === 'string' && (parsed[k] as string).trim())
        .map((k) => `${k}: ${(parsed[k] as string).trim()}`);
      if (parts.length) return parts.join('\n');
    } catch {
      // not JSON after all: use the text
    }
  }
  return reply.trim();
}

/** One-line reason of a sub-score for the metric's reasoning. */
export function subScoreLine(s: SubScore): string {
  if (s.decidedBy === 'system_one') return s.reason;
  const fallback = s.systemOneError ? ` (System One failed: ${s.systemOneError}; decided by the LLM judge)` : '';
  return `${LABEL_OF[s.name]} ${r3(s.value)}${fallback}: ${s.reason}`;
}

/** One verbose step as the lines printed to stderr: each question with its answer and probability, prompts in full. */
export function verboseText(metric: string, step: Record<string, unknown>): string {
  const turn = typeof step.turn === 'number' ? ` turn ${step.turn + 1}` : '';
  const head = `[${metric} verbose]${turn} ${String(step.step)}`;
  const lines: string[] = [];
  if (step.step === 'system-one') {
    lines.push(`${head} (${String(step.model)})`);
    for (const a of step.answers as Array<{ question: string; text: string; answer: string; level: number; confidence: number; value: number }>)
      lines.push(`  Q ${a.question}: ${a.text}`, `  A ${a.answer} (level ${a.level}/3), p=${a.confidence}, value ${a.value}`);
    if (step.evidence) lines.push(`  evidence: ${JSON.stringify(step.evidence)}`);
  } else if (step.step === 'llm-prompt') {
    lines.push(`${head} ${String(step.subScore ?? step.purpose)} to ${String(step.model)}:`);
    lines.push(`  system:\n${String(step.rubric ?? step.system)}`, `  prompt:\n${String(step.prompt)}`);
  } else {
    const rest = Object.fromEntries(Object.entries(step).filter(([k]) => k !== 'step' && k !== 'turn'));
    lines.push(`${head} ${JSON.stringify(rest)}`);
  }
  return `${lines.join('\n')}\n`;
}
