export * from './model-price.js';
export * from './model-name.js';
export * from './price-table.js';
export * from './cost.js';
export * from './committed-prices.js';
export * from './refresh.js';
