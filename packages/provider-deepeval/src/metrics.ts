/**
 * The DeepEval metrics mapped onto the MAS ontology: each names the deepeval class computing it, the test-case
 * fields it reads and the levels where they exist. The library's own model is replaced by an OpenAI client on
 * mce's judge whose every call is counted.
 */
import type { OntologyLevel } from '@mce/core';
import type { LibraryCall, LibraryScore } from '@mce/provider-native';
import { deepeval } from './library.js';
import type { DeepEvalInput, TestCaseData } from './test-case.js';

export const DEEPEVAL_PROVIDER = 'deepeval';
export const DEEPEVAL_LIBRARY = 'deepeval@0.1.32';

const ANSWER_LEVELS: readonly OntologyLevel[] = ['Session', 'MASCall', 'AgentCall', 'LLMCall'];
const SCOPE_LEVELS: readonly OntologyLevel[] = ['Session', 'MASCall', 'AgentCall'];

export interface DeepEvalDefinition {
  name: string;
  /** The deepeval class (its telemetry-hub spelling is `deepeval.<className>`). */
  className: string;
  description: string;
  levels: readonly OntologyLevel[];
  needs: readonly DeepEvalInput[];
  /** Lower is better (Bias, Toxicity, Hallucination): `threshold` is then a maximum. */
  lowerIsBetter?: boolean;
  /** Constructor options beyond threshold/strict mode/reason, from mce options (snake_case). */
  extra?: Record<string, string>;
}

export const DEEPEVAL_METRICS: readonly DeepEvalDefinition[] = [
  {
    name: 'AnswerRelevancy', className: 'AnswerRelevancyMetric', levels: ANSWER_LEVELS, needs: ['input', 'actualOutput'],
    description: 'Share of the statements of the response that are relevant to the input.',
  },
  {
    name: 'Faithfulness', className: 'FaithfulnessMetric', levels: SCOPE_LEVELS, needs: ['input', 'actualOutput', 'retrievalContext'],
    description: 'Share of the claims of the response that the retrieval context (tool results) does not contradict.',
    extra: { penalize_ambiguous_claims: 'penalizeAmbiguousClaims' },
  },
  {
    name: 'ContextualPrecision', className: 'ContextualPrecisionMetric', levels: SCOPE_LEVELS, needs: ['input', 'retrievalContext', 'expectedOutput'],
    description: 'Whether the tool results useful for the reference answer are ranked above the others (weighted precision).',
  },
  {
    name: 'ContextualRecall', className: 'ContextualRecallMetric', levels: SCOPE_LEVELS, needs: ['input', 'retrievalContext', 'expectedOutput'],
    description: 'Share of the sentences of the reference answer attributable to the retrieval context.',
  },
  {
    name: 'ContextualRelevancy', className: 'ContextualRelevancyMetric', levels: SCOPE_LEVELS, needs: ['input', 'retrievalContext'],
    description: 'Share of the statements of the retrieval context relevant to the input.',
  },
  {
    name: 'Hallucination', className: 'HallucinationMetric', levels: SCOPE_LEVELS, needs: ['input', 'actualOutput', 'context'], lowerIsBetter: true,
    description: 'Share of the contexts (tool results) the response contradicts; lower is better.',
  },
  {
    name: 'Bias', className: 'BiasMetric', levels: ANSWER_LEVELS, needs: ['input', 'actualOutput'], lowerIsBetter: true,
    description: 'Share of the opinions in the response that are biased; lower is better.',
  },
  {
    name: 'Toxicity', className: 'ToxicityMetric', levels: ANSWER_LEVELS, needs: ['input', 'actualOutput'], lowerIsBetter: true,
    description: 'Share of the opinions in the response that are toxic; lower is better.',
  },
  {
    name: 'TaskCompletion', className: 'TaskCompletionMetric', levels: SCOPE_LEVELS, needs: ['input', 'actualOutput', 'toolsCalled'],
    description: 'How well the outcome (response and tools called) achieves the task the judge infers from the input.',
    extra: { task: 'task' },
  },
  {
    name: 'ToolCorrectness', className: 'ToolCorrectnessMetric', levels: SCOPE_LEVELS, needs: ['input', 'toolsCalled', 'expectedTools', 'availableTools'],
    description:
      'Overlap of the tools called with the expected ones (option expected_tools), capped by an LLM tool-selection score when tools were offered.',
    extra: { should_exact_match: 'shouldExactMatch', should_consider_ordering: 'shouldConsiderOrdering' },
  },
  {
    name: 'ArgumentCorrectness', className: 'ArgumentCorrectnessMetric', levels: SCOPE_LEVELS, needs: ['input', 'toolsCalled'],
    description: 'Share of the tool calls whose arguments are correct for the input.',
  },
  {
    name: 'MCPUse', className: 'MCPUseMetric', levels: SCOPE_LEVELS, needs: ['input', 'actualOutput', 'mcp'],
    description: 'Minimum of the MCP primitive-selection and argument-correctness scores over the MCP calls made.',
  },
];

const COMMON_OPTIONS = ['model', 'threshold', 'strict_mode', 'include_reason'];

export function deepevalOptions(definition: DeepEvalDefinition): string[] {
  return [
    ...COMMON_OPTIONS,
    ...(definition.needs.includes('expectedOutput') ? ['reference'] : []),
    ...(definition.needs.includes('expectedTools') ? ['expected_tools'] : []),
    ...Object.keys(definition.extra ?? {}),
  ];
}

type AnyMetric = {
  measure(testCase: unknown): Promise<number>;
  score?: number;
  reason?: string;
  success?: boolean;
  threshold: number;
  strictMode: boolean;
  error?: string;
  scoreBreakdown?: Record<string, unknown>;
  model?: { client?: unknown; temperature?: number };
};

/** The library's test case (its classes) from the plain data. */
function testCase(data: TestCaseData): unknown {
  const lib = deepeval();
  const { ToolCall, LLMTestCase } = lib;
  const mcp = lib.testCase as unknown as Record<string, new (params: Record<string, unknown>) => unknown>;
  const tool = (t: { name: string }) => new ToolCall(t as never);
  return new LLMTestCase({
    ...(data.input !== undefined ? { input: data.input } : { input: '' }),
    ...(data.actualOutput !== undefined ? { actualOutput: data.actualOutput } : {}),
    ...(data.retrievalContext ? { retrievalContext: data.retrievalContext } : {}),
    ...(data.context ? { context: data.context } : {}),
    ...(data.expectedOutput !== undefined ? { expectedOutput: data.expectedOutput } : {}),
    ...(data.toolsCalled ? { toolsCalled: data.toolsCalled.map(tool) } : {}),
    ...(data.expectedTools ? { expectedTools: data.expectedTools.map(tool) } : {}),
    ...(data.mcpServers ? { mcpServers: data.mcpServers.map((s) => new mcp.MCPServer!(s)) } : {}),
    ...(data.mcpToolsCalled ? { mcpToolsCalled: data.mcpToolsCalled.map((c) => new mcp.MCPToolCall!(c)) } : {}),
    ...(data.mcpResourcesCalled ? { mcpResourcesCalled: data.mcpResourcesCalled.map((c) => new mcp.MCPResourceCall!(c)) } : {}),
    ...(data.mcpPromptsCalled ? { mcpPromptsCalled: data.mcpPromptsCalled.map((c) => new mcp.MCPPromptCall!(c)) } : {}),
  } as never);
}

/** The metric's constructor options from mce's (snake_case) options. */
function constructorOptions(definition: DeepEvalDefinition, data: TestCaseData, call: LibraryCall): Record<string, unknown> {
  const o = call.options;
  const out: Record<string, unknown> = { model: call.model, showIndicator: false, verboseMode: false };
  if (typeof o.threshold === 'number') out.threshold = o.threshold;
  if (typeof o.strict_mode === 'boolean') out.strictMode = o.strict_mode;
  if (typeof o.include_reason === 'boolean') out.includeReason = o.include_reason;
  for (const [option, field] of Object.entries(definition.extra ?? {})) if (o[option] !== undefined) out[field] = o[option];
  if (data.availableTools && data.availableTools.length > 0) out.availableTools = data.availableTools.map((t) => new (deepeval().ToolCall)(t as never));
  return out;
}

export async function measure(definition: DeepEvalDefinition, data: TestCaseData, call: LibraryCall): Promise<LibraryScore> {
  const Metric = (deepeval().metrics as unknown as Record<string, new (options: Record<string, unknown>) => AnyMetric>)[definition.className];
  if (!Metric) throw new Error(`${DEEPEVAL_LIBRARY} has no ${definition.className}`);
  const metric = new Metric(constructorOptions(definition, data, call));
  // The library's OpenAI model, on mce's judge: its client is the counted one (built lazily otherwise).
  if (!metric.model) throw new Error(`${definition.className} has no model to replace`);
  metric.model.client = call.client;
  metric.model.temperature = call.judge.config.temperature ?? 0;
  await metric.measure(testCase(data));
  if (metric.error) throw new Error(metric.error);
  return {
    value: metric.score ?? Number.NaN,
    ...(metric.reason ? { reasoning: metric.reason } : {}),
    details: {
      threshold: metric.threshold,
      success: metric.success ?? null,
      strictMode: metric.strictMode,
      ...(definition.lowerIsBetter ? { lowerIsBetter: true } : {}),
      ...(metric.scoreBreakdown ? { scoreBreakdown: metric.scoreBreakdown } : {}),
    },
  };
}
