/**
 * MeanToolUtilizationAccuracy: the session mean of the per-tool-call ToolUtilizationAccuracy results. It makes no
 * LLM call itself (so it carries no evaluation usage); the summed usage of the judgements it averages is in details.
 */
import { type Element, type Metric, type MetricContext, type MetricOutcome, type Session, skip } from '@mce/core';
import { sumEvaluationUsage } from '../../judge/usage-meter.js';
import { LLM_MODULE, LLM_PROVIDER } from './define.js';

export const MEAN_TOOL_UTILIZATION_ACCURACY = 'MeanToolUtilizationAccuracy';

export const MeanToolUtilizationAccuracy: Metric & { portable: { module: string; exportName: string } } = Object.freeze({
  metadata: Object.freeze({
    name: MEAN_TOOL_UTILIZATION_ACCURACY,
    provider: LLM_PROVIDER,
    levels: ['Session'] as const,
    nature: 'aggregate' as const,
    unit: 'dimensionless',
    valueRange: '0.0-1.0',
    description: 'Mean ToolUtilizationAccuracy over the tool calls of the session.',
    requirements: ['ToolUtilizationAccuracy results'],
    dependsOn: ['ToolUtilizationAccuracy'],
  }),
  portable: Object.freeze({ module: LLM_MODULE, exportName: MEAN_TOOL_UTILIZATION_ACCURACY }),
  compute(element: Element, ctx: MetricContext): MetricOutcome {
    const session = element as Session;
    const results = ctx.results.all('ToolUtilizationAccuracy');
    if (session.toolCalls.length === 0) return skip('the session has no tool call');
    if (results.length === 0) return skip('no tool call of the session was scored by ToolUtilizationAccuracy');
    const mean = results.reduce((sum, r) => sum + r.result, 0) / results.length;
    const usage = sumEvaluationUsage(
      results
        .filter((r) => r.evaluationModel !== null)
        .map((r) => ({
          model: r.evaluationModel ?? '',
          promptTokens: r.evaluationPromptTokenCount,
          completionTokens: r.evaluationCompletionTokenCount,
          totalTokens: r.evaluationTotalTokenCount,
          costUsd: r.evaluationCost,
        })),
    );
    const unscored = session.toolCalls.length - results.length;
    return {
      value: mean,
      reasoning:
        `Mean of ${results.length} tool-call judgement(s)` +
        (unscored > 0 ? `; ${unscored} tool call(s) without a successful judgement are left out` : ''),
      details: { scored: results.length, toolCalls: session.toolCalls.length, ...(usage ? { judgeUsage: usage } : {}) },
    };
  },
});
