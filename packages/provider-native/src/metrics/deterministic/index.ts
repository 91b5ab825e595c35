export { Duration } from './duration.js';
export { PromptTokens, CompletionTokens, TotalTokens } from './tokens.js';
export { Cost, createCostMetric, llmCallCost, type LLMCallCost } from './cost.js';
export { LLMCallCount, ToolCallCount, AgentCallCount } from './call-counts.js';
export { ToolErrorRate, LLMErrorRate, isErrored } from './error-rates.js';
export { CyclesCount, countCycles, countCyclesFast, countCyclesNaive } from './cycles.js';
export {
  AgentToAgentInteractions,
  AgentToToolInteractions,
  WorkflowEfficiency,
  agentTransitions,
  workflowEfficiency,
  type AgentTransitions,
} from './interactions.js';
export {
  MeanLLMCallDuration,
  P95LLMCallDuration,
  MeanToolCallDuration,
  mean,
  nearestRankPercentile,
} from './call-duration-aggregates.js';
export { nativeMetric, NATIVE_PROVIDER, NATIVE_MODULE, type NativeMetric, type NativeMetricSpec } from './define.js';
export { elementSpan, agentIndex, byStartTime, type ElementSpan, type AgentIndex } from './session-index.js';
export { sessionStats, statsOf, type ContainerStats } from './container-stats.js';
