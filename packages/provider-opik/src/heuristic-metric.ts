/**
 * A heuristic Opik metric as an mce Metric: deterministic (no judge, no cost, no cache key), computed by the opik
 * package's class. An error of the library or of an option is a failed result named with the metric, never a 0.
 */
import { skip, type Element, type Metric, type MetricContext, type MetricMetadata, type MetricOutcome } from '@mce/core';
import { answeredWithToolCallsOnly, type JudgedElement } from '@mce/provider-native';
import type { HeuristicDefinition } from './heuristics.js';
import { OPIK_LIBRARY, OPIK_PROVIDER } from './names.js';

/** An LLM call that answered with tool calls only has no text output: skipped, as the judged metrics skip it. */
const toolCallsOnly = ({ level, element }: JudgedElement): string | undefined =>
  answeredWithToolCallsOnly(level, element) ? 'the LLM call answered with tool calls only: no text output' : undefined;

function named(id: string, error: unknown): Error {
  if (error instanceof Error && error.message.startsWith(`${id}: `)) return error;
  const message = error instanceof Error ? error.message : String(error);
  const wrapped = new Error(`${id}: ${message}`, { cause: error });
  if (error instanceof Error && error.name !== 'Error') wrapped.name = error.name;
  return wrapped;
}

export function heuristicMetric(definition: HeuristicDefinition): Metric {
  const id = `${OPIK_PROVIDER}:${definition.name}`;
  const metadata: MetricMetadata = Object.freeze({
    name: definition.name,
    provider: OPIK_PROVIDER,
    levels: definition.levels,
    nature: 'deterministic',
    unit: 'dimensionless',
    valueRange: '0 or 1',
    description: `${definition.description} (Opik ${definition.name}, computed by ${OPIK_LIBRARY}; no LLM)`,
    requirements: definition.requirements,
    dependsOn: [],
    options: definition.options,
  });
  return Object.freeze({
    metadata,
    async compute(element: Element, ctx: MetricContext): Promise<MetricOutcome> {
      const target: JudgedElement = { level: ctx.level, element, session: ctx.session };
      const reason = toolCallsOnly(target);
      if (reason) return skip(reason);
      try {
        const input = definition.input(id, target, ctx.options);
        const result = await definition.create(ctx.options).score(input);
        if (!Number.isFinite(result.value)) throw new Error(`the library returned no score (${String(result.value)})`);
        return { value: result.value, ...(result.reason ? { reasoning: result.reason } : {}), details: { library: OPIK_LIBRARY } };
      } catch (error) {
        throw named(id, error);
      }
    },
  });
}
