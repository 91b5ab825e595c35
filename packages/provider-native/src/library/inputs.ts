/**
 * The inputs evaluation libraries name (input, actual output, retrieval context, expected output, tools called),
 * read from a MAS element: the retrieval context is what the tools in the element's scope returned, the expected
 * output a reference the user gives (the metric's `reference` option, or the element's `reference` /
 * `expected_output` attribute). A missing one throws MissingJudgeInputError: the metric fails, it is never 0.
 */
import type { ToolCall } from '@mce/core';
import { MissingJudgeInputError } from '../judge/errors.js';
import { show, toolErrorText } from '../judge/transcript.js';
import { byStartTime } from '../metrics/deterministic/session-index.js';
import { describeElement, responseOf, scopeOf, userInputOf, type JudgedElement } from '../metrics/llm/inputs.js';

export type LibraryInput = 'input' | 'output' | 'context' | 'reference';

function missing(metric: string, target: JudgedElement, what: string): never {
  throw new MissingJudgeInputError(`${metric}: ${describeElement(target)} has no ${what}`);
}

/** The element's user input. */
export function inputOf(metric: string, target: JudgedElement): string {
  return userInputOf(target) ?? missing(metric, target, 'user input');
}

/** The element's final response. */
export function outputOf(metric: string, target: JudgedElement): string {
  return responseOf(target) ?? missing(metric, target, 'response (final response or assistant message)');
}

/** The tool calls in the element's scope, in time order (for a tool call: itself). */
export function toolCallsOf(target: JudgedElement): ToolCall[] {
  if (target.level === 'ToolCall') return [target.element as ToolCall];
  return byStartTime([...scopeOf(target).toolCalls]);
}

/** The retrieval context: each tool result (or error) in scope, one entry per tool call. */
export function retrievalContextOf(metric: string, target: JudgedElement): string[] {
  const context = toolCallsOf(target).flatMap((tool) => {
    const text = tool.error ? toolErrorText(tool.error) : show(tool.result ?? tool.output);
    return text.trim() ? [`${tool.toolName}: ${text}`] : [];
  });
  return context.length > 0 ? context : missing(metric, target, 'retrieval context (no tool call in scope returned a result)');
}

/** The expected output: the `reference` option, else the element's (or session's) `reference` / `expected_output` attribute. */
export function referenceOf(metric: string, target: JudgedElement, options: Readonly<Record<string, unknown>>): string {
  const fromOption = options.reference;
  if (typeof fromOption === 'string' && fromOption.trim()) return fromOption.trim();
  for (const attributes of [(target.element as { attributes?: Record<string, unknown> }).attributes, target.session.attributes]) {
    for (const key of ['reference', 'expected_output', 'mce.reference']) {
      const value = attributes?.[key];
      if (typeof value === 'string' && value.trim()) return value.trim();
    }
  }
  return missing(metric, target, 'reference answer (set the metric\'s "reference" option or a "reference" attribute)');
}

/** The inputs a metric names, read once. */
export function libraryInputs(
  metric: string,
  needs: readonly LibraryInput[],
  target: JudgedElement,
  options: Readonly<Record<string, unknown>>,
): { input?: string; output?: string; context?: string[]; reference?: string } {
  const out: { input?: string; output?: string; context?: string[]; reference?: string } = {};
  for (const need of needs) {
    if (need === 'input') out.input = inputOf(metric, target);
    else if (need === 'output') out.output = outputOf(metric, target);
    else if (need === 'context') out.context = retrievalContextOf(metric, target);
    else out.reference = referenceOf(metric, target, options);
  }
  return out;
}
