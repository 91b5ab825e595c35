export * from './mce-config.js';
export * from './client-config.js';
