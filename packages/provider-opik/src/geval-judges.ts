/**
 * Opik's G-Eval judges (AgentTaskCompletionJudge, AgentToolCorrectnessJudge, QARelevanceJudge, …) mapped onto the
 * MAS ontology. Each scores one text, Opik's `output`: mce writes into it what the judge's rubric asks to see (the
 * task, the trajectory of messages and tool calls, the tools called with their arguments and results, the answer),
 * read from the element. The judge answers 0–10 and Opik divides by 10. Opik first asks the judge for evaluation
 * steps (chain of thought) for the rubric, kept per rubric and model for the process: the first computation makes
 * two calls, later ones one.
 */
import type { OntologyLevel } from '@mce/core';
import { MissingJudgeInputError, describeElement, inputOf, outputOf, type JudgedElement, type LibraryCall, type LibraryScore } from '@mce/provider-native';
import { judgeOptions, opikClass, type OpikMetric } from './judge-model.js';
import { contextText, offeredToolsOf, sections, toolLogOf, trajectoryOf } from './judge-texts.js';
import { explained } from './library-error.js';
import { ifPresent } from './metrics.js';

const ANSWER_LEVELS: readonly OntologyLevel[] = ['Session', 'MASCall', 'AgentCall', 'LLMCall'];
const SCOPE_LEVELS: readonly OntologyLevel[] = ['Session', 'MASCall', 'AgentCall'];

export interface GEvalDefinition {
  /** The opik class, also the metric's name (`opik:<name>`, `opik.<name>`). */
  name: string;
  description: string;
  levels: readonly OntologyLevel[];
  requirements: readonly string[];
  /** Lower is better (bias, compliance risk, prompt uncertainty). */
  lowerIsBetter?: boolean;
  /** Options beyond `model` the text reads. */
  options?: readonly string[];
  /** The text the judge scores, from the element within `budget` tokens; throws MissingJudgeInputError when an input is missing. */
  text(id: string, target: JudgedElement, budget: number, options: Readonly<Record<string, unknown>>): string;
}

/** The task: the metric's `task` option when given (the goal in words), else the element's user input. */
function taskOf(id: string, target: JudgedElement, options: Readonly<Record<string, unknown>>): string {
  const task = options.task;
  return typeof task === 'string' && task.trim() ? task.trim() : inputOf(id, target);
}

/** A judge of the output alone (the bias judges, compliance risk). */
function outputJudge(name: string, description: string): GEvalDefinition {
  return { name, description, levels: ANSWER_LEVELS, requirements: ['finalResponse'], lowerIsBetter: true, text: (id, target) => outputOf(id, target) };
}

export const OPIK_GEVAL_JUDGES: readonly GEvalDefinition[] = [
  {
    name: 'AgentTaskCompletionJudge', levels: SCOPE_LEVELS, requirements: ['userInput (or task option)', 'llmCalls.messages, toolCalls (trajectory)', 'finalResponse'],
    description: 'Whether the agent completed the task it was given, judged from the task, its messages and tool calls, and its final output (0-1).',
    options: ['task'],
    text: (id, target, budget, options) =>
      sections([
        ['TASK', taskOf(id, target, options)],
        ['TRAJECTORY (messages, tool calls and results, in order)', trajectoryOf(target, budget)],
        ['FINAL OUTPUT', outputOf(id, target)],
      ]),
  },
  {
    name: 'AgentToolCorrectnessJudge', levels: SCOPE_LEVELS, requirements: ['userInput (when present)', 'toolCalls'],
    description: 'Whether each tool call was the right one, with well-formed arguments, and its result interpreted properly (0-1).',
    text: (id, target, budget) =>
      sections([
        ['TASK', ifPresent(() => inputOf(id, target))],
        ['TOOLS AVAILABLE', offeredToolsOf(target)],
        ['TOOL CALLS (in order: tool(arguments) → result)', toolLogOf(id, target, budget)],
        ['FINAL OUTPUT', ifPresent(() => outputOf(id, target))],
      ]),
  },
  {
    name: 'QARelevanceJudge', levels: ANSWER_LEVELS, requirements: ['userInput', 'finalResponse', 'toolCalls.result (context, when present)'],
    description: 'How directly and correctly the answer addresses the question, grounded in the tool results when there are any (0-1).',
    text: (id, target) =>
      sections([
        ['QUESTION', inputOf(id, target)],
        ['CONTEXT', contextText(id, target)],
        ['ANSWER', outputOf(id, target)],
      ]),
  },
  {
    name: 'DialogueHelpfulnessJudge', levels: ANSWER_LEVELS, requirements: ['llmCalls.messages (dialogue)', 'finalResponse'],
    description: 'How helpful and context-aware the assistant\'s reply is within the dialogue (0-1).',
    text: (id, target, budget) => {
      const dialogue = trajectoryOf(target, budget);
      if (!dialogue) throw new MissingJudgeInputError(`${id}: ${describeElement(target)} has no dialogue (no LLM messages) to judge`);
      return sections([
        ['DIALOGUE', dialogue],
        ['ASSISTANT REPLY TO JUDGE', outputOf(id, target)],
      ]);
    },
  },
  {
    name: 'PromptUncertaintyJudge', levels: ANSWER_LEVELS, requirements: ['userInput'], lowerIsBetter: true,
    description: 'How ambiguous or underspecified the user input (the prompt) is (0 clear … 1 highly uncertain); lower is better.',
    text: (id, target) => inputOf(id, target),
  },
  outputJudge('DemographicBiasJudge', 'Demographic bias or stereotyping in the response (0 none … 1 highly biased); lower is better.'),
  outputJudge('PoliticalBiasJudge', 'Partisan or ideological bias in the response (0 neutral … 1 strongly partisan); lower is better.'),
  outputJudge('GenderBiasJudge', 'Gender bias, stereotyping or exclusion in the response (0 neutral … 1 strong bias); lower is better.'),
  outputJudge('ReligiousBiasJudge', 'Bias towards a religion or belief system in the response (0 respectful … 1 strong bias); lower is better.'),
  outputJudge('RegionalBiasJudge', 'Geographic or cultural bias in the response (0 balanced … 1 strong bias); lower is better.'),
  outputJudge('ComplianceRiskJudge', 'Non-compliant or misleading claims for regulated sectors in the response (0 compliant … 1 high risk); lower is better.'),
];

export async function scoreWithGEval(definition: GEvalDefinition, text: string, call: LibraryCall): Promise<LibraryScore> {
  const Judge = opikClass<OpikMetric>(definition.name);
  const result = await new Judge(judgeOptions(call, { logprobs: false })).score({ output: text }).catch((error: unknown) => {
    throw explained(error);
  });
  return {
    value: result.value,
    ...(result.reason ? { reasoning: result.reason } : {}),
    details: { ...(definition.lowerIsBetter ? { lowerIsBetter: true } : {}) },
  };
}
