/**
 * A DeepEval LLMTestCase from a MAS element: input and actual output from the element, the retrieval context (and
 * Hallucination's `context`) from the tool results in its scope, the tools called from its tool calls, the MCP
 * servers from the agent's or session's inventory, the expected output and tools from the metric's options.
 */
import type { AgentCall, MCPServer, Session, ToolCall } from '@mce/core';
import {
  MissingJudgeInputError,
  inputOf,
  outputOf,
  referenceOf,
  retrievalContextOf,
  scopeOf,
  toolCallsOf,
  type JudgedElement,
} from '@mce/provider-native';

export type DeepEvalInput =
  | 'input'
  | 'actualOutput'
  | 'retrievalContext'
  | 'context'
  | 'expectedOutput'
  | 'toolsCalled'
  | 'expectedTools'
  | 'availableTools'
  | 'mcp';

/** Plain data (hashed for the cache key); turned into the library's classes when computed. */
export interface TestCaseData {
  input?: string;
  actualOutput?: string;
  retrievalContext?: string[];
  context?: string[];
  expectedOutput?: string;
  toolsCalled?: Array<{ name: string; inputParameters?: Record<string, unknown>; output?: unknown }>;
  expectedTools?: Array<{ name: string }>;
  availableTools?: Array<{ name: string; description?: string }>;
  mcpServers?: Array<{ serverName: string; transport?: string; availableTools: unknown[]; availableResources: unknown[]; availablePrompts: unknown[] }>;
  mcpToolsCalled?: Array<{ name: string; args: unknown; result: unknown }>;
  mcpResourcesCalled?: Array<{ uri: string; result: unknown }>;
  mcpPromptsCalled?: Array<{ name: string; result: unknown }>;
}

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

function toolsCalled(target: JudgedElement): NonNullable<TestCaseData['toolsCalled']> {
  return toolCallsOf(target).map((t) => {
    const args = asRecord(t.arguments);
    const output = t.error ? { error: t.error } : (t.result ?? t.output);
    return { name: t.toolName, ...(args ? { inputParameters: args } : {}), ...(output !== undefined ? { output } : {}) };
  });
}

function expectedTools(metric: string, target: JudgedElement, options: Readonly<Record<string, unknown>>): Array<{ name: string }> {
  const raw = options.expected_tools;
  if (!Array.isArray(raw) || raw.length === 0 || !raw.every((n) => typeof n === 'string' && n.trim())) {
    throw new MissingJudgeInputError(`${metric}: set the metric's "expected_tools" option (a list of tool names) to judge ${target.level} ${target.element.id}`);
  }
  return raw.map((name: string) => ({ name: name.trim() }));
}

/** The tools offered to the models in scope (their definitions), each name once. */
function availableTools(target: JudgedElement): Array<{ name: string; description?: string }> {
  const seen = new Map<string, { name: string; description?: string }>();
  for (const call of scopeOf(target).llmCalls) {
    for (const d of call.toolDefinitions) if (!seen.has(d.name)) seen.set(d.name, { name: d.name, ...(d.description ? { description: d.description } : {}) });
  }
  return [...seen.values()];
}

function serversOf(target: JudgedElement): MCPServer[] {
  const agent = target.level === 'AgentCall' ? (target.element as AgentCall) : undefined;
  return agent?.mcpServers ?? (target.session as Session).mcpServers;
}

function mcpInputs(metric: string, target: JudgedElement): Partial<TestCaseData> {
  const servers = serversOf(target);
  if (servers.length === 0) throw new MissingJudgeInputError(`${metric}: ${target.level} ${target.element.id} has no MCP servers in its inventory`);
  const calls = toolCallsOf(target).filter((t): t is ToolCall & { mcp: NonNullable<ToolCall['mcp']> } => t.mcp !== undefined);
  const result = (t: ToolCall) => (t.error ? { error: t.error } : (t.result ?? t.output ?? null));
  return {
    mcpServers: servers.map((s) => ({
      serverName: s.name,
      ...(s.transport ? { transport: s.transport } : {}),
      availableTools: s.tools.map((t) => ({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema ?? {} })),
      availableResources: s.resources.map((r) => ({ uri: r.uri, name: r.name ?? r.uri, description: r.description ?? '' })),
      availablePrompts: s.prompts.map((p) => ({ name: p.name, description: p.description ?? '' })),
    })),
    mcpToolsCalled: calls.filter((t) => t.mcp.kind === 'tool').map((t) => ({ name: t.toolName, args: t.arguments ?? {}, result: result(t) })),
    mcpResourcesCalled: calls.filter((t) => t.mcp.kind === 'resource').map((t) => ({ uri: t.mcp.uri ?? t.toolName, result: result(t) })),
    mcpPromptsCalled: calls.filter((t) => t.mcp.kind === 'prompt').map((t) => ({ name: t.toolName, result: result(t) })),
  };
}

export function testCaseData(
  metric: string,
  needs: readonly DeepEvalInput[],
  target: JudgedElement,
  options: Readonly<Record<string, unknown>>,
): TestCaseData {
  const data: TestCaseData = {};
  for (const need of needs) {
    if (need === 'input') data.input = inputOf(metric, target);
    else if (need === 'actualOutput') data.actualOutput = outputOf(metric, target);
    else if (need === 'retrievalContext') data.retrievalContext = retrievalContextOf(metric, target);
    else if (need === 'context') data.context = retrievalContextOf(metric, target);
    else if (need === 'expectedOutput') data.expectedOutput = referenceOf(metric, target, options);
    else if (need === 'toolsCalled') data.toolsCalled = toolsCalled(target);
    else if (need === 'expectedTools') data.expectedTools = expectedTools(metric, target, options);
    else if (need === 'availableTools') data.availableTools = availableTools(target);
    else Object.assign(data, mcpInputs(metric, target));
  }
  return data;
}
