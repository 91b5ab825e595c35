/**
 * The LLM-judged metrics, bound to a judge. `createLLMJudgedMetrics(judge)` for a given judge (tests, a client with
 * its own configuration); the exported constants are bound to the default judge (environment) and are what the
 * native provider lists.
 */
import type { Metric } from '@mce/core';
import { judgedMetric, type JudgedMetric, type JudgeSource } from './define.js';
import { defaultJudge } from './default-judge.js';
import {
  ANSWER_RELEVANCY,
  COMPONENT_CONFLICT_RATE,
  CONSISTENCY,
  CONTEXT_PRESERVATION,
  GOAL_SUCCESS_RATE,
  GROUNDEDNESS,
  INFORMATION_RETENTION,
  INTENT_RECOGNITION_ACCURACY,
  LLM_JUDGED_DEFINITIONS,
  RESPONSE_COMPLETENESS,
  TASK_COMPLETION,
  TOOL_UTILIZATION_ACCURACY,
  WORKFLOW_COHESION_INDEX,
} from './definitions.js';
import { MeanToolUtilizationAccuracy } from './mean-tool-utilization.js';

/** Every LLM-judged metric bound to `judge`, plus the MeanToolUtilizationAccuracy aggregate. */
export function createLLMJudgedMetrics(judge: JudgeSource): Metric[] {
  return [...LLM_JUDGED_DEFINITIONS.map((d) => judgedMetric(d, judge)), MeanToolUtilizationAccuracy];
}

export const AnswerRelevancy: JudgedMetric = judgedMetric(ANSWER_RELEVANCY, defaultJudge);
export const Groundedness: JudgedMetric = judgedMetric(GROUNDEDNESS, defaultJudge);
export const IntentRecognitionAccuracy: JudgedMetric = judgedMetric(INTENT_RECOGNITION_ACCURACY, defaultJudge);
export const TaskCompletion: JudgedMetric = judgedMetric(TASK_COMPLETION, defaultJudge);
export const ToolUtilizationAccuracy: JudgedMetric = judgedMetric(TOOL_UTILIZATION_ACCURACY, defaultJudge);
export const GoalSuccessRate: JudgedMetric = judgedMetric(GOAL_SUCCESS_RATE, defaultJudge);
export const ResponseCompleteness: JudgedMetric = judgedMetric(RESPONSE_COMPLETENESS, defaultJudge);
export const Consistency: JudgedMetric = judgedMetric(CONSISTENCY, defaultJudge);
export const ContextPreservation: JudgedMetric = judgedMetric(CONTEXT_PRESERVATION, defaultJudge);
export const InformationRetention: JudgedMetric = judgedMetric(INFORMATION_RETENTION, defaultJudge);
export const WorkflowCohesionIndex: JudgedMetric = judgedMetric(WORKFLOW_COHESION_INDEX, defaultJudge);
export const ComponentConflictRate: JudgedMetric = judgedMetric(COMPONENT_CONFLICT_RATE, defaultJudge);

/** The LLM-judged metrics of the native provider (default judge), aggregate included. */
export const LLM_JUDGED_METRICS: readonly Metric[] = Object.freeze([
  AnswerRelevancy,
  Groundedness,
  IntentRecognitionAccuracy,
  TaskCompletion,
  ToolUtilizationAccuracy,
  MeanToolUtilizationAccuracy,
  GoalSuccessRate,
  ResponseCompleteness,
  Consistency,
  ContextPreservation,
  InformationRetention,
  WorkflowCohesionIndex,
  ComponentConflictRate,
]);
