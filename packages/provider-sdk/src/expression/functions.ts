/** The functions of the language: each over the children of the measured element at one level. */
export type FunctionName = 'count' | 'share' | 'sum' | 'mean' | 'min' | 'max';

export interface FunctionSpec {
  /** What the first argument is: a level (`count(ToolCall)`) or a numeric field of one (`sum(LLMCall.total_tokens)`). */
  over: 'level' | 'field';
  /** Whether the second argument, a condition on each child, is required, optional or not taken. */
  predicate: 'required' | 'optional';
  description: string;
}

export const FUNCTIONS: Readonly<Record<FunctionName, FunctionSpec>> = Object.freeze({
  count: { over: 'level', predicate: 'optional', description: 'children at the level [that meet the condition]' },
  share: { over: 'level', predicate: 'required', description: 'share of the children at the level that meet the condition (fails when there are none)' },
  sum: { over: 'field', predicate: 'optional', description: 'sum of the field over the children [that meet the condition] (0 when none)' },
  mean: { over: 'field', predicate: 'optional', description: 'mean of the field (fails when no child)' },
  min: { over: 'field', predicate: 'optional', description: 'smallest value of the field (fails when no child)' },
  max: { over: 'field', predicate: 'optional', description: 'largest value of the field (fails when no child)' },
});

export function functionSpec(name: string): FunctionSpec | undefined {
  return Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name as FunctionName] : undefined;
}
