/**
 * MeanToolUtilizationAccuracy: the session mean of the per-tool-call ToolUtilizationAccuracy results. It makes no
 * LLM call itself, but its score costs the judge calls it averages: their summed usage (model, tokens, cost) is its
 * evaluation fields (as the seed requires), and also in details.judgeUsage. A run total that sums every result's
 * cost would count those calls twice, so details.usageRestated marks it and the run and report totals skip it.
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
    // A mean over the calls whose judgement happened to succeed would change with which ones failed: no score then.
    // (A judge out of reach fails those judgements as transient: the worker retries the session, the mean with it.)
    const unscored = session.toolCalls.length - results.length;
    if (unscored > 0) {
      throw new Error(
        `${unscored} of the session's ${session.toolCalls.length} tool call(s) have no ToolUtilizationAccuracy result ` +
          '(their judgement failed, see its errors, or was not computed): no mean over part of them',
      );
    }
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
    return {
      value: mean(results.map((r) => r.result)),
      reasoning: `Mean of ${results.length} tool-call judgement(s).`,
      details: { scored: results.length, toolCalls: session.toolCalls.length, ...(usage ? { judgeUsage: usage, usageRestated: true } : {}) },
      ...(usage ? { evaluation: usage } : {}),
    };
  },
});
