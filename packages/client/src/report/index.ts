export { buildSessionReport, type SessionReport, type ReportNode, type CostRow } from './model.js';
export { reportDocument, sessionSection, resultsTable, page, OPEN_ALL_UP_TO } from './html.js';
export { esc } from './escape.js';
export { trendChart, type TrendPoint } from './chart.js';
export { newestResults } from './newest.js';
