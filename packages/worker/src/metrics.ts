/**
 * Prometheus metrics of one worker, in their own registry (several workers may live in one process, e.g. in tests).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { BatchOutcome } from './processor.js';
import type { DeadLetterReason } from './topology.js';

/** What one processed batch adds to the metrics. */
export interface ProcessedBatch {
  /** Sessions in the batch (its size), unknown ones included. */
  sessions: number;
  /** Sessions computed and stored. */
  stored: number;
  /** From the processBatch call to the committed flush. */
  seconds: number;
  /** LLM judge tokens and cost (USD) spent on the batch. */
  tokens: number;
  cost: number;
}

/** Window over which the sessions/s gauge is computed. */
const RATE_WINDOW_MS = 10_000;

export class WorkerMetrics {
  readonly registry = new Registry();
  readonly messagesProcessed: Counter;
  readonly messagesRetried: Counter;
  readonly messagesDeadLettered: Counter<'reason'>;
  readonly sessionsProcessed: Counter;
  readonly batchesFailed: Counter;
  readonly batchesSplit: Counter;
  readonly movesFailed: Counter;
  readonly connections: Counter;
  readonly batchSize: Histogram;
  readonly batchDuration: Histogram;
  readonly judgeTokens: Counter;
  readonly judgeCost: Counter;
  private readonly recent: { at: number; sessions: number }[] = [];

  constructor(options: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.messagesProcessed = new Counter({ name: 'mce_worker_messages_processed_total', help: 'Messages whose sessions were stored and which were acked, each counted once however often a broker cut delivered it.', registers });
    this.messagesRetried = new Counter({ name: 'mce_worker_messages_retried_total', help: 'Copies sent to the retry queue after a transient failure.', registers });
    this.messagesDeadLettered = new Counter({ name: 'mce_worker_messages_dead_lettered_total', help: 'Messages dead-lettered and acked, by reason, each counted once.', labelNames: ['reason'], registers });
    this.sessionsProcessed = new Counter({ name: 'mce_worker_sessions_processed_total', help: 'Sessions computed and stored.', registers });
    this.batchesFailed = new Counter({ name: 'mce_worker_batches_failed_total', help: 'Batches whose processBatch call threw (store unreachable, or a message it refuses); counted once however the batch was split afterwards.', registers });
    this.batchesSplit = new Counter({ name: 'mce_worker_batches_split_total', help: 'Failed batches of several messages processed again in parts to find the messages at fault.', registers });
    this.movesFailed = new Counter({ name: 'mce_worker_moves_failed_total', help: 'Messages that could not be moved to the retry or dead-letter queue (requeued after a pause instead).', registers });
    this.connections = new Counter({ name: 'mce_worker_broker_connections_total', help: 'Connections made to the broker (the first one and every reconnect).', registers });
    this.batchSize = new Histogram({ name: 'mce_worker_batch_size', help: 'Sessions per batch.', buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500], registers });
    this.batchDuration = new Histogram({ name: 'mce_worker_batch_duration_seconds', help: 'Time from processBatch call to committed flush.', buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers });
    this.judgeTokens = new Counter({ name: 'mce_worker_judge_tokens_total', help: 'LLM judge tokens spent.', registers });
    this.judgeCost = new Counter({ name: 'mce_worker_judge_cost_usd_total', help: 'LLM judge cost in USD.', registers });
    const recent = this.recent;
    new Gauge({
      name: 'mce_worker_sessions_per_second',
      help: `Sessions stored per second over the last ${RATE_WINDOW_MS / 1000} s.`,
      registers,
      collect() {
        this.set(sessionsPerSecond(recent, Date.now()));
      },
    });
    if (options.defaultMetrics) collectDefaultMetrics({ register: this.registry });
  }

  recordBatch({ sessions, stored, seconds, tokens, cost }: ProcessedBatch): void {
    this.batchSize.observe(sessions);
    this.batchDuration.observe(seconds);
    this.sessionsProcessed.inc(stored);
    if (tokens > 0) this.judgeTokens.inc(tokens);
    if (cost > 0) this.judgeCost.inc(cost);
    const now = Date.now();
    this.recent.push({ at: now, sessions: stored });
    while (this.recent.length > 0 && (this.recent[0]?.at ?? now) < now - RATE_WINDOW_MS) this.recent.shift();
  }

  deadLettered(reason: DeadLetterReason): void {
    this.messagesDeadLettered.inc({ reason });
  }
}

/** What a stored batch's outcome adds: the sessions stored, and the judge's tokens and cost. */
export function batchUsage(outcome: BatchOutcome): Pick<ProcessedBatch, 'stored' | 'tokens' | 'cost'> {
  let tokens = 0;
  let cost = 0;
  for (const item of outcome.items) {
    tokens += item.evaluationTokens ?? 0;
    cost += item.evaluationCost ?? 0;
  }
  return { stored: outcome.items.filter((item) => item.status === 'ok').length, tokens, cost };
}

function sessionsPerSecond(recent: { at: number; sessions: number }[], now: number): number {
  const inWindow = recent.filter((entry) => entry.at >= now - RATE_WINDOW_MS);
  const total = inWindow.reduce((sum, entry) => sum + entry.sessions, 0);
  return total / (RATE_WINDOW_MS / 1000);
}
