/** What a stored batch adds to /metrics: sessions stored (not the unknown ones), the judge's tokens and cost. */
import { describe, expect, it } from 'vitest';
import { WorkerMetrics, type BatchItemOutcome } from '@mce/worker';
import { batchUsage } from '../../src/metrics.js';

const item = (status: BatchItemOutcome['status'], tokens?: number, cost?: number): BatchItemOutcome =>
  ({ sessionId: 's', status, ...(tokens ? { evaluationTokens: tokens } : {}), ...(cost ? { evaluationCost: cost } : {}) }) as BatchItemOutcome;

describe('batch metrics', () => {
  it('counts the stored sessions and adds up the judge usage of every session', () => {
    expect(batchUsage({ items: [item('ok', 100, 0.5), item('unknown-session'), item('transient-failure', 20, 0.25)] })).toEqual({ stored: 1, tokens: 120, cost: 0.75 });
  });

  it('records a batch in the registry', async () => {
    const metrics = new WorkerMetrics();
    metrics.recordBatch({ sessions: 3, seconds: 0.2, ...batchUsage({ items: [item('ok', 10, 1), item('ok'), item('unknown-session')] }) });
    const text = await metrics.registry.metrics();
    expect(text).toContain('mce_worker_sessions_processed_total 2');
    expect(text).toContain('mce_worker_judge_tokens_total 10');
    expect(text).toContain('mce_worker_batch_size_count 1');
  });
});
