export * from './catalog.js';
export { judgedMetric, rubricJudgedMetric, stableJson, type JudgedMetric, type JudgedMetricDefinition, type JudgeSource, type RubricJudgedMetric } from './define.js';
export * from './default-judge.js';
export * from './definitions.js';
export {
  type JudgedElement,
  conversationOf,
  describeElement,
  responseOf,
  scopeOf,
  toolOutputOf,
  userInputOf,
} from './inputs.js';
export * from './mean-tool-utilization.js';
