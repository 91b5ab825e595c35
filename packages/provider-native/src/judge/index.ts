export * from './config.js';
export * from './errors.js';
export * from './judge.js';
export * from './limiter.js';
export { resetLogprobSupport } from './logprob-support.js';
export * from './pricing.js';
export * from './retry.js';
export * from './score-parsing.js';
export * from './usage-meter.js';
