export * from './mce-config.js';
export * from './client-config.js';
export * from './eval-mode.js';
export * from './thresholds.js';
