/**
 * MCEWorkerService (SPEC §6): the declarative-config worker behind `mce compute <session_id>` and the standalone
 * `mce-worker`. `processBatch` computes every session of a batch and writes all their results in ONE bulk store
 * flush; it throws only when the store (or something the whole batch needs) fails — a transient failure the caller
 * retries. A failing metric is a failed result, not a failed batch; but a metric that failed because a service it
 * needs could not be reached (the judge, after its own retries) marks its session `transient-failure`, so that the
 * caller retries that message later instead of settling for the missing results.
 */
import type { Session, SessionComputation } from '@mce/core';
import { metricResultsOf, unstoredResultsOf, unstoredSessionsOf, type MCEClient } from './mce-client.js';
import { priceFallbackWarning, type PriceFallbackWarning } from './price-fallback.js';

export interface BatchItem {
  sessionId: string;
  /** Derived from the message, so a redelivered message overwrites its results instead of duplicating them. */
  runId: string;
}

export interface BatchItemOutcome {
  sessionId: string;
  /**
   * `ok`: computed and stored. `unknown-session`: the store has no such session. `transient-failure`: computed and
   * stored, but some metric failed because a service it needs was unreachable (`error` says which); computing the
   * session again later (with the same run id: its results are overwritten) may complete it.
   */
  status: 'ok' | 'unknown-session' | 'transient-failure';
  error?: string;
  results: number;
  failedMetrics: number;
  skippedMetrics: number;
  evaluationTokens: number;
  evaluationCost: number;
  /** The price-fallback warning: LLM calls of the session priced like gpt-4o (no price for their model). */
  priceFallback?: PriceFallbackWarning;
}

export interface BatchOutcome {
  items: BatchItemOutcome[];
  /** Results written by the flush and those the store rejected as not fitting the ontology. */
  written: number;
  rejected: number;
}

/**
 * Where a worker sends its stored results as evaluation events (the receiver's `gen_ai.evaluation.result` export,
 * `receiver.export_otlp`): emit per session, flush per batch. A failed send is reported, never a failed batch: the
 * results are stored.
 */
export interface EvaluationEventSink {
  emit(session: Session, results: SessionComputation['results']): void;
  flush(): Promise<void>;
}

export interface WorkerServiceOptions {
  events?: EvaluationEventSink;
  /** Told when the events of a stored batch could not be sent. */
  onEventsFailed?: (error: unknown) => void;
}

export class MCEWorkerService {
  #streams: boolean | undefined;

  constructor(
    readonly client: MCEClient,
    readonly options: WorkerServiceOptions = {},
  ) {}

  /**
   * Whether a batch's results go to the store while the batch computes (one transaction held open meanwhile) or
   * in one write after it. Streamed only when no metric of the configured selection waits on an LLM: a judged batch
   * can take minutes, and a PostgreSQL transaction open that long holds back vacuum for the whole database.
   */
  get streamsResults(): boolean {
    this.#streams ??= !this.client
      .plan()
      .stages.some((stage) => stage.some((task) => task.entry.metric.metadata.nature === 'llm-judged'));
    return this.#streams && this.client.store.openResultFlush !== undefined;
  }

  /** Compute and store one session (its own run id unless given). */
  async processSession(sessionId: string, runId?: string): Promise<BatchItemOutcome> {
    const { items } = await this.processBatch([{ sessionId, runId: runId ?? `session:${sessionId}:${Date.now()}` }]);
    return items[0] as BatchItemOutcome;
  }

  async processBatch(batch: readonly BatchItem[]): Promise<BatchOutcome> {
    const store = this.client.store;
    // All sessions of the batch in one read (one snapshot), instead of an existence check and a read per session.
    const sessions = await store.getSessions(batch.map((b) => b.sessionId));
    // Where the store can stream a flush (and the metrics are quick, see streamsResults), each session's results go
    // to the database as soon as they are computed (it ingests them while the next session is computed); still one
    // transaction, committed after the last session.
    const flush = sessions.size > 0 && this.streamsResults ? await store.openResultFlush?.(this.client.metricDefinitions()) : undefined;
    try {
      const computations: SessionComputation[] = [];
      // With an event sink: each session's results, to send once they are stored.
      const toSend: Array<{ session: Session; results: SessionComputation['results'] }> = [];
      // Kept as (session, id) pairs, not computations: a streamed flush holds no session's records once added.
      const withdrawn: Array<{ sessionId: string; id: string }> = [];
      const items: BatchItemOutcome[] = [];
      for (const item of batch) {
        const session = sessions.get(item.sessionId);
        if (!session) {
          items.push({ sessionId: item.sessionId, status: 'unknown-session', results: 0, failedMetrics: 0, skippedMetrics: 0, evaluationTokens: 0, evaluationCost: 0 });
          continue;
        }
        // One compute per item: each message has its own run id (its results' ids derive from it).
        const [computation] = await this.client.compute([session], { runId: item.runId });
        const c = computation as SessionComputation;
        if (this.options.events) toSend.push({ session, results: c.results });
        if (flush) {
          flush.add(metricResultsOf(c));
          withdrawn.push(...unstoredResultsOf(c));
        } else computations.push(c);
        let evaluationTokens = 0;
        let evaluationCost = 0;
        for (const r of c.results) {
          // An aggregate restating its inputs' judge usage (MeanToolUtilizationAccuracy) is not a second cost.
          if (r.details?.usageRestated === true) continue;
          evaluationTokens += r.evaluationTotalTokenCount;
          evaluationCost += r.evaluationCost;
        }
        const transient = c.failed.find((f) => f.transient);
        const priceFallback = priceFallbackWarning([c]);
        items.push({
          sessionId: item.sessionId,
          ...(transient
            ? { status: 'transient-failure', error: `${transient.name} (${transient.level} ${transient.measures}): ${transient.error}` }
            : { status: 'ok' }),
          results: c.results.length,
          failedMetrics: c.failed.length,
          skippedMetrics: c.skipped.length,
          evaluationTokens,
          evaluationCost,
          ...(priceFallback ? { priceFallback } : {}),
        });
      }
      // What a retried message's earlier attempt stored and this one failed or skipped goes first (storeComputations
      // does the same).
      if (flush) await this.client.withdrawResults(withdrawn);
      const outcome = flush
        ? await flush.commit()
        : computations.length
          ? await this.client.writeComputations(computations)
          : { written: 0, rejected: [] };
      // A session deleted while it was computed: its results were not stored, and it is settled as one not found.
      const gone = new Set(unstoredSessionsOf(outcome));
      const settled = items.map((item) => {
        if (!gone.has(item.sessionId)) return item;
        const unknown: BatchItemOutcome = { ...item, status: 'unknown-session', results: 0 };
        delete unknown.error;
        return unknown;
      });
      await this.#sendEvents(toSend.filter((s) => !gone.has(s.session.id)));
      return { items: settled, written: outcome.written, rejected: outcome.rejected.length };
    } catch (error) {
      await flush?.abort();
      throw error;
    }
  }

  /** The stored sessions' results as events; a send that fails is reported (the results are stored all the same). */
  async #sendEvents(sessions: ReadonlyArray<{ session: Session; results: SessionComputation['results'] }>): Promise<void> {
    const events = this.options.events;
    if (!events || sessions.length === 0) return;
    for (const { session, results } of sessions) events.emit(session, results);
    try {
      await events.flush();
    } catch (error) {
      this.options.onEventsFailed?.(error);
    }
  }
}
