/**
 * MeanToolUtilizationAccuracy: the session mean of the per-tool-call ToolUtilizationAccuracy results. It makes no
 * LLM call itself (so it carries no evaluation usage); the summed usage of the judgements it averages is in details.
 */
import { LLM_JUDGED_SPECS, type Element, type Metric, type MetricContext, type MetricOutcome, type Session, skip } from '@mce/core';
import { sumEvaluationUsage } from '../../judge/usage-meter.js';
import { mean } from '../deterministic/call-duration-aggregates.js';
import { NATIVE_MODULE } from '../deterministic/define.js';
import { coreSpec } from './define.js';

export const MEAN_TOOL_UTILIZATION_ACCURACY = 'MeanToolUtilizationAccuracy';

export const MeanToolUtilizationAccuracy: Metric & { portable: { module: string; exportName: string } } = Object.freeze({
  metadata: Object.freeze({ ...coreSpec(LLM_JUDGED_SPECS, MEAN_TOOL_UTILIZATION_ACCURACY), options: [] }), // it reads no option
  portable: Object.freeze({ module: NATIVE_MODULE, exportName: MEAN_TOOL_UTILIZATION_ACCURACY }),
  compute(element: Element, ctx: MetricContext): MetricOutcome {
    const session = element as Session;
    const results = ctx.results.all('ToolUtilizationAccuracy');
    if (session.toolCalls.length === 0) return skip('the session has no tool call');
    if (results.length === 0) return skip('no tool call of the session was scored by ToolUtilizationAccuracy');
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
      value: mean(results.map((r) => r.result)),
      reasoning:
        `Mean of ${results.length} tool-call judgement(s)` +
        (unscored > 0 ? `; ${unscored} tool call(s) without a successful judgement are left out` : ''),
      details: { scored: results.length, toolCalls: session.toolCalls.length, ...(usage ? { judgeUsage: usage } : {}) },
    };
  },
});
