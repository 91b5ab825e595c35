/**
 * What a judged sdk metric shows the judge, by the input names of its `inputs:` list, read from the element with
 * mce's own readers. A missing one throws MissingJudgeInputError naming the input: the result fails, it is never 0.
 */
import { MissingJudgeInputError, conversationOf, describeElement, responseOf, toolCallsOf, userInputOf, type JudgedElement } from '@mce/provider-native';
import type { JudgedInput } from '../config-schema.js';

const shown = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));

interface InputReader {
  title: string;
  /** What is missing when it is, in words. */
  what: string;
  read(target: JudgedElement, budget: number): string | undefined;
}

export const INPUT_READERS: Readonly<Record<JudgedInput, InputReader>> = Object.freeze({
  user_input: { title: 'User input', what: 'user input', read: (target) => userInputOf(target) },
  final_response: { title: 'Final response', what: 'final response (or assistant message)', read: (target) => responseOf(target) },
  messages: {
    title: 'Conversation (messages, tool calls and results, in order)',
    what: 'messages (no LLM message or tool call in scope)',
    read: (target, budget) => {
      const transcript = conversationOf(target, budget);
      return transcript.totalEntries > 0 ? transcript.text : undefined;
    },
  },
  tool_arguments: {
    title: 'Tool calls and their arguments',
    what: 'tool calls',
    read: (target) => {
      const calls = toolCallsOf(target);
      return calls.length > 0 ? calls.map((c) => `- ${c.toolName}: ${shown(c.arguments ?? {})}`).join('\n') : undefined;
    },
  },
  tool_results: {
    title: 'Tool results',
    what: 'tool results (no tool call in scope returned one)',
    read: (target) => {
      const results = toolCallsOf(target).flatMap((c) => {
        const output = c.error ? `error: ${c.error.message ?? c.error.type ?? 'failed'}` : shown(c.result ?? c.output ?? '');
        return output.trim() ? [`- ${c.toolName}: ${output}`] : [];
      });
      return results.length > 0 ? results.join('\n') : undefined;
    },
  },
});

/** The `## Title` sections of the judge's user message, in the order the metric lists its inputs. */
export function inputSections(metric: string, inputs: readonly JudgedInput[], target: JudgedElement, budget: number): string {
  const parts = [`## Judged\n${describeElement(target)}`];
  for (const input of inputs) {
    const reader = INPUT_READERS[input];
    const text = reader.read(target, budget)?.trim();
    if (!text) throw new MissingJudgeInputError(`${metric}: ${describeElement(target)} has no ${reader.what} to judge (input ${input})`);
    parts.push(`## ${reader.title}\n${text}`);
  }
  return parts.join('\n\n');
}
