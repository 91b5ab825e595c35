/**
 * The parts of the text a G-Eval judge scores, read from a MAS element: the trajectory (mce's judge transcript of the
 * messages and tool calls in scope), the tool-call log, the tools offered, the context (tool results), as sections
 * under plain headings. A required part that is missing throws MissingJudgeInputError.
 */
import {
  MissingJudgeInputError,
  clipToTokens,
  conversationOf,
  describeElement,
  retrievalContextOf,
  scopeOf,
  toolCallsOf,
  type JudgedElement,
} from '@mce/provider-native';
import { ifPresent } from './metrics.js';

/** Sections `TITLE:\ntext`, blank-line separated, the absent ones left out. */
export function sections(parts: Array<[string, string | undefined]>): string {
  return parts
    .filter((p): p is [string, string] => p[1] !== undefined && p[1] !== '')
    .map(([title, text]) => `${title}:\n${text}`)
    .join('\n\n');
}

/** The element's messages and tool calls in order (mce's judge transcript), or undefined when it has none. */
export function trajectoryOf(target: JudgedElement, budget: number): string | undefined {
  const transcript = conversationOf(target, budget);
  return transcript.totalEntries > 0 ? transcript.text : undefined;
}

/** The tool calls in scope, numbered: name, arguments, result or error; failing when there is none. */
export function toolLogOf(id: string, target: JudgedElement, budget: number): string {
  const tools = toolCallsOf(target);
  if (tools.length === 0) throw new MissingJudgeInputError(`${id}: ${describeElement(target)} has no tool calls to judge`);
  const each = Math.max(50, Math.floor(budget / (2 * tools.length)));
  return tools
    .map((tool, i) => {
      const outcome = tool.error ? `error: ${[tool.error.type, tool.error.message].filter(Boolean).join(': ')}` : show(tool.result ?? tool.output) || '(no result recorded)';
      return `${i + 1}. ${tool.toolName}(${show(tool.arguments ?? tool.input)})\n   → ${clipToTokens(outcome, each)}`;
    })
    .join('\n');
}

/** The tools the models in scope were offered (their definitions), one line each; undefined when none were recorded. */
export function offeredToolsOf(target: JudgedElement): string | undefined {
  const offered = new Map<string, string>();
  for (const call of scopeOf(target).llmCalls) for (const d of call.toolDefinitions) if (!offered.has(d.name)) offered.set(d.name, d.description ?? '');
  return offered.size > 0 ? [...offered].map(([name, description]) => `- ${name}${description ? `: ${description}` : ''}`).join('\n') : undefined;
}

/** A JSON-ish value as the prompt shows it: strings verbatim, the rest as compact JSON. */
function show(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export const contextText = (id: string, target: JudgedElement) => ifPresent(() => retrievalContextOf(id, target))?.join('\n');
