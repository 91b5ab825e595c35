import type { OntologyLevel } from '../ontology/types.js';
import type { MetricSpec } from './metric-spec.js';

const ALL_LEVELS: readonly OntologyLevel[] = ['Session', 'MASCall', 'AgentCall', 'TaskCall', 'LLMCall', 'ToolCall'];
const USAGE_LEVELS: readonly OntologyLevel[] = ['LLMCall', 'AgentCall', 'MASCall', 'Session'];
const CONTAINER_LEVELS: readonly OntologyLevel[] = ['Session', 'MASCall', 'AgentCall'];

function deterministic(spec: Omit<MetricSpec, 'provider' | 'nature' | 'dependsOn'>): MetricSpec {
  return { provider: 'mce', nature: 'deterministic', dependsOn: [], options: [], ...spec };
}

function tokens(name: string, what: string, field: string): MetricSpec {
  return deterministic({
    name,
    levels: USAGE_LEVELS,
    unit: 'tokens',
    valueRange: 'non-negative integer',
    description: `${what} of an LLM call, summed over the LLM calls of an agent call, MAS call or session.`,
    requirements: [`llmCalls.usage.${field}`],
  });
}

function count(name: string, what: string, requirement: string): MetricSpec {
  return deterministic({
    name,
    levels: CONTAINER_LEVELS,
    unit: 'count',
    valueRange: 'non-negative integer',
    description: `Number of ${what} in the session, MAS call or agent call.`,
    requirements: [requirement],
  });
}

function errorRate(name: string, what: string, requirement: string): MetricSpec {
  return deterministic({
    name,
    levels: CONTAINER_LEVELS,
    unit: '%',
    valueRange: '0-100',
    description: `100 × errored ${what} / ${what}; 0 when there are none.`,
    requirements: [requirement],
  });
}

/** Metrics computed from the trace alone (no LLM). */
export const DETERMINISTIC_SPECS: readonly MetricSpec[] = [
  deterministic({
    name: 'Duration',
    levels: ALL_LEVELS,
    unit: 'ms',
    valueRange: 'non-negative number',
    description: 'End time minus start time; for a session, earliest start to latest end of its elements.',
    requirements: ['startTime', 'endTime'],
  }),
  tokens('PromptTokens', 'Input tokens (cached ones included)', 'inputTokens'),
  tokens('CompletionTokens', 'Output tokens', 'outputTokens'),
  tokens('TotalTokens', 'Total tokens', 'totalTokens'),
  deterministic({
    name: 'Cost',
    levels: USAGE_LEVELS,
    unit: 'USD',
    valueRange: 'non-negative number',
    description:
      'Price of an LLM call from the LiteLLM table (input, cache read/write and output tokens), summed over the LLM calls of an agent call, MAS call or session.',
    requirements: ['llmCalls.usage', 'llmCalls.responseModel or llmCalls.requestModel'],
  }),
  count('LLMCallCount', 'LLM calls', 'llmCalls'),
  count('ToolCallCount', 'tool calls', 'toolCalls'),
  count('AgentCallCount', 'agent calls', 'agentCalls'),
  errorRate('ToolErrorRate', 'tool calls', 'toolCalls.status'),
  errorRate('LLMErrorRate', 'LLM calls', 'llmCalls.status'),
  deterministic({
    name: 'CyclesCount',
    levels: ['Session', 'AgentCall'],
    unit: 'count',
    valueRange: 'non-negative integer',
    description:
      'Number of repeated blocks (length ≥ 2, immediately repeated) in the time-ordered sequence of agent-call and tool-call names.',
    requirements: ['agentCalls.agentName', 'toolCalls.toolName', 'startTime'],
  }),
  deterministic({
    name: 'AgentToAgentInteractions',
    levels: ['Session'],
    unit: 'count',
    valueRange: 'non-negative integer',
    description: 'Number of transitions between consecutive different agents; details count each "A -> B".',
    requirements: ['agentCalls.agentName', 'agentCalls.startTime'],
  }),
  deterministic({
    name: 'AgentToToolInteractions',
    levels: ['Session'],
    unit: 'count',
    valueRange: 'non-negative integer',
    description: 'Number of tool calls made by agents; details count each "(agent) -> (tool)".',
    requirements: ['toolCalls.agentCallId', 'toolCalls.toolName', 'agentCalls.agentName'],
  }),
  deterministic({
    name: 'WorkflowEfficiency',
    levels: ['Session'],
    unit: 'dimensionless',
    valueRange: '0.0-1.0',
    description:
      'From the number u of unique agent transitions: 1 if u ≤ 2, else max(0, 1 − 0.2·(u − 2)); skipped without transitions.',
    requirements: ['agentCalls.agentName', 'agentCalls.startTime'],
  }),
];

function aggregate(name: string, description: string, dependsOn: string, unit: string, valueRange: string): MetricSpec {
  return {
    name,
    provider: 'mce',
    levels: ['Session'],
    nature: 'aggregate',
    unit,
    valueRange,
    description,
    requirements: [`${dependsOn} results`],
    dependsOn: [dependsOn],
    options: [],
  };
}

/** Session-level metrics derived from call-level results (they exercise the scheduler). */
export const AGGREGATE_SPECS: readonly MetricSpec[] = [
  aggregate('MeanLLMCallDuration', 'Mean Duration of the LLM calls of the session.', 'Duration', 'ms', 'non-negative number'),
  aggregate(
    'P95LLMCallDuration',
    '95th percentile of the Duration of the LLM calls of the session.',
    'Duration',
    'ms',
    'non-negative number',
  ),
  aggregate('MeanToolCallDuration', 'Mean Duration of the tool calls of the session.', 'Duration', 'ms', 'non-negative number'),
];
