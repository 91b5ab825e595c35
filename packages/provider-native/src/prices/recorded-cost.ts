/**
 * The third price source: the cost the framework recorded on the span, for a model no price table knows.
 * Read from the call's attributes: `gen_ai.usage.cost` (a total), `gen_ai.usage.input_cost` + `output_cost`
 * (any-agent), `operation.cost`, and `langfuse.observation.cost_details` (Langfuse's costDetails object as JSON text,
 * `{input, output, total, …}`). Values may be numbers or numeric strings; a negative or non-finite one is no cost.
 */
export interface RecordedCost {
  total: number;
  input?: number;
  output?: number;
  /** The attribute(s) it was read from. */
  attribute: string;
}

function amount(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

export const LANGFUSE_COST_DETAILS = 'langfuse.observation.cost_details';

/** Langfuse costDetails: `total` when given, else the sum of its parts (`input`, `output`, cache keys …). */
function langfuseCost(raw: unknown): RecordedCost | undefined {
  let details: unknown = raw;
  if (typeof raw === 'string') {
    try {
      details = JSON.parse(raw);
    } catch {
      return undefined;
    }
  }
  if (typeof details !== 'object' || details === null || Array.isArray(details)) return undefined;
  const entries = details as Record<string, unknown>;
  const input = amount(entries.input);
  const output = amount(entries.output);
  let total = amount(entries.total);
  if (total === undefined) {
    const parts = Object.values(entries).map(amount).filter((v): v is number => v !== undefined);
    if (parts.length === 0) return undefined;
    total = parts.reduce((a, b) => a + b, 0);
  }
  return { total, ...(input === undefined ? {} : { input }), ...(output === undefined ? {} : { output }), attribute: LANGFUSE_COST_DETAILS };
}

/** The cost recorded on a call's span, or undefined when it records none. */
export function recordedCost(attributes: Readonly<Record<string, unknown>> | undefined): RecordedCost | undefined {
  if (!attributes) return undefined;
  const total = amount(attributes['gen_ai.usage.cost']);
  const input = amount(attributes['gen_ai.usage.input_cost']);
  const output = amount(attributes['gen_ai.usage.output_cost']);
  if (total !== undefined) {
    return { total, ...(input === undefined ? {} : { input }), ...(output === undefined ? {} : { output }), attribute: 'gen_ai.usage.cost' };
  }
  if (input !== undefined || output !== undefined) {
    return {
      total: (input ?? 0) + (output ?? 0),
      ...(input === undefined ? {} : { input }),
      ...(output === undefined ? {} : { output }),
      attribute: 'gen_ai.usage.input_cost/output_cost',
    };
  }
  const operation = amount(attributes['operation.cost']);
  if (operation !== undefined) return { total: operation, attribute: 'operation.cost' };
  return langfuseCost(attributes[LANGFUSE_COST_DETAILS]);
}
