/** `mce check`'s table: one row per session and threshold, the verdict and why. */
import { formatValue, table, truncate } from '../cli/format.js';
import { bounds, type CheckCase } from './evaluate.js';

const STATUS = { pass: 'pass', fail: 'FAIL', error: 'ERROR', skipped: 'skipped' } as const;

export function formatCheckTable(cases: readonly CheckCase[]): string {
  if (cases.length === 0) return '(no sessions)';
  return table(
    ['Session', 'Level', 'Metric', 'Per', 'Threshold', 'Value', 'Status', 'Detail'],
    cases.map((c) => [
      c.sessionId,
      c.threshold.level,
      c.threshold.metric,
      c.threshold.per,
      bounds(c.threshold),
      c.value === undefined ? '—' : formatValue(c.value),
      STATUS[c.status],
      truncate(c.message, 80),
    ]),
  );
}
