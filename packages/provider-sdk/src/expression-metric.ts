/**
 * A deterministic sdk metric: an expression, parsed and checked when the configuration is loaded, evaluated for
 * each element. A condition counts 1 or 0; a division by zero, an aggregate over nothing or a field not recorded is
 * the element's failure, never a number.
 */
import type { Element, Metric, MetricContext, MetricOutcome } from '@mce/core';
import type { DeterministicMetricConfig } from './config-schema.js';
import type { Expression } from './expression/ast.js';
import { checkExpression } from './expression/check.js';
import { evaluate } from './expression/evaluate.js';
import { parseExpression } from './expression/parser.js';
import { SDK_PROVIDER } from './provider-name.js';
import { withThreshold } from './threshold.js';

/** Parses and checks the expression at the metric's levels; throws ExpressionError with the column. */
export function compileExpression(config: DeterministicMetricConfig): Expression {
  const expression = parseExpression(config.expression);
  checkExpression(expression, config.levels);
  return expression;
}

export function expressionSdkMetric(config: DeterministicMetricConfig): Metric {
  const id = `${SDK_PROVIDER}:${config.name}`;
  const expression = compileExpression(config);
  const source = config.expression.trim();
  return Object.freeze({
    metadata: Object.freeze({
      name: config.name,
      provider: SDK_PROVIDER,
      levels: config.levels,
      nature: 'deterministic' as const,
      unit: config.unit ?? 'dimensionless',
      valueRange: 'number',
      description: config.description ?? `Expression: ${source}`,
      requirements: [`expression: ${source}`],
      dependsOn: [],
      options: ['threshold'],
    }),
    compute(element: Element, ctx: MetricContext): MetricOutcome {
      let value: number | string | boolean;
      try {
        value = evaluate(expression, { session: ctx.session, element, level: ctx.level });
      } catch (error) {
        throw new Error(`${id}: ${JSON.stringify(source)} at ${(error as Error).message}`, { cause: error });
      }
      const number = typeof value === 'boolean' ? Number(value) : (value as number);
      if (!Number.isFinite(number)) throw new Error(`${id}: ${JSON.stringify(source)} is ${number}, not a number`);
      const threshold = ctx.options.threshold ?? config.threshold;
      return withThreshold({ value: number, reasoning: `${source} = ${value}`, details: { expression: source } }, threshold);
    },
  });
}
