export * from './judge/index.js';
