import type { OntologyLevel } from '../ontology/types.js';
import type { MetricSpec } from './metric-spec.js';

const SESSION_AGENT: readonly OntologyLevel[] = ['Session', 'AgentCall'];

/** The options a judged metric reads: the judge model that overrides the configured one. */
export const JUDGED_OPTION_NAMES: readonly string[] = Object.freeze(['model']);

/** The options the MCP metrics read (seed 004's parameters, snake_case as mce_config.yaml writes them). */
export const MCP_OPTION_NAMES: readonly string[] = Object.freeze([
  'threshold',
  'model',
  'include_reason',
  'strict_mode',
  'async_mode',
  'verbose_mode',
  'flaky',
  'system_one_model',
  'eval_mode',
  'system_one_weights',
]);

function judged(
  name: string,
  levels: readonly OntologyLevel[],
  description: string,
  requirements: string[],
  options: readonly string[] = JUDGED_OPTION_NAMES,
): MetricSpec {
  return {
    name,
    provider: 'mce',
    levels,
    nature: 'llm-judged',
    unit: 'dimensionless',
    valueRange: '0.0-1.0',
    description,
    requirements,
    dependsOn: [],
    options,
  };
}

const CONVERSATION = ['userInput', 'finalResponse', 'llmCalls.inputMessages', 'llmCalls.outputMessages'];

/** Metrics an LLM judge scores 1–5 against a rubric, reported as (score − 1) / 4. */
export const LLM_JUDGED_SPECS: readonly MetricSpec[] = [
  judged(
    'AnswerRelevancy',
    ['Session', 'AgentCall', 'LLMCall'],
    'How relevant the response is to the user input.',
    ['userInput', 'finalResponse'],
  ),
  judged('Groundedness', SESSION_AGENT, 'How far the response is supported by the context and tool results it had.', [
    'finalResponse',
    'toolCalls.result',
    'llmCalls.inputMessages',
  ]),
  judged('IntentRecognitionAccuracy', ['Session'], 'How accurately the system recognised what the user wanted.', [
    'userInput',
    'llmCalls.outputMessages',
  ]),
  judged(
    'TaskCompletion',
    ['Session', 'AgentCall', 'TaskCall'],
    'How completely the task asked for was carried out.',
    ['userInput', 'finalResponse', 'toolCalls'],
  ),
  judged('ToolUtilizationAccuracy', ['ToolCall'], 'Whether the right tool was called with the right arguments.', [
    'toolCalls.toolName',
    'toolCalls.arguments',
    'toolCalls.result',
    'toolCalls.definition',
  ]),
  {
    name: 'MeanToolUtilizationAccuracy',
    provider: 'mce',
    levels: ['Session'],
    nature: 'aggregate',
    unit: 'dimensionless',
    valueRange: '0.0-1.0',
    description: 'Mean ToolUtilizationAccuracy over the tool calls of the session.',
    requirements: ['ToolUtilizationAccuracy results'],
    dependsOn: ['ToolUtilizationAccuracy'],
    options: [],
  },
  judged('GoalSuccessRate', SESSION_AGENT, 'Whether the user goals of the conversation were reached.', CONVERSATION),
  judged('ResponseCompleteness', SESSION_AGENT, 'Whether the response addresses every part of the request.', [
    'userInput',
    'finalResponse',
  ]),
  judged('Consistency', SESSION_AGENT, 'Whether the responses stay consistent with each other and with facts given.', CONVERSATION),
  judged('ContextPreservation', SESSION_AGENT, 'Whether context from earlier turns is carried forward correctly.', CONVERSATION),
  judged('InformationRetention', SESSION_AGENT, 'Whether information the user gave is remembered and reused.', CONVERSATION),
  judged(
    'WorkflowCohesionIndex',
    SESSION_AGENT,
    'How coherently the agents and tools of the workflow work together toward the goal.',
    ['agentCalls', 'toolCalls', 'llmCalls.outputMessages'],
  ),
  judged(
    'ComponentConflictRate',
    SESSION_AGENT,
    'How free the components are of conflicting or contradictory actions (1 = no conflict).',
    ['agentCalls', 'toolCalls', 'llmCalls.outputMessages'],
  ),
];

/** LLM-judged metrics of MCP use (seed 004): eval modes llm, hybrid, system_one. */
export const MCP_SPECS: readonly MetricSpec[] = [
  judged('MCPUse', SESSION_AGENT, 'How well the MCP primitives called and their arguments fit the user input.', [
    'userInput',
    'finalResponse',
    'mcpServers',
    'toolCalls.mcp',
  ], MCP_OPTION_NAMES),
  judged('MultiTurnMCPUse', ['Session'], 'MCP use across the turns of a conversation.', [
    'llmCalls.inputMessages',
    'mcpServers',
    'toolCalls.mcp',
  ], MCP_OPTION_NAMES),
  judged('MCPTaskCompletion', ['Session'], 'Whether the task was completed using the MCP servers available.', [
    'userInput',
    'finalResponse',
    'mcpServers',
    'toolCalls.mcp',
  ], MCP_OPTION_NAMES),
];
