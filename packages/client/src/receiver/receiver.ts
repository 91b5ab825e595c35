/**
 * The OTLP receiver behind `POST /v1/traces`: spans of each request are grouped into sessions and stored before the
 * request is answered (a store that fails answers 503, and the client resends: nothing acknowledged is lost); spans
 * still waiting for their session's id are held in a bounded buffer (past it, 429). A session is evaluated once
 * complete (idle, or its root arrived): in this process, or by publishing its id to the worker queue.
 */
import { elementCount, hasControlCharacter, NO_CONTROL_CHARACTER, quoteControlCharacters, SessionNotFoundError, type Session, type SessionComputation } from '@mce/core';
import { WarningSink, type IngestWarning } from '@mce/ingest';
import { otlpSpans } from '@mce/ingest';
import { normaliseSession } from '@mce/ingest';
import { explicitSessionId } from '@mce/ingest';
import type { SpanRecord } from '@mce/ingest';
import type { MCEClient } from '../mce-client.js';
import { SessionAssembler, type SessionPart } from './assembly.js';
import type { EvaluationEventExporter } from './evaluation-events.js';
import type { ReceiverSettings } from './settings.js';

/** Why a request is refused for now: `status` 429 (buffer full) or 503 (store failing, stopping), to retry after. */
export class ReceiverBusyError extends Error {
  override readonly name = 'ReceiverBusyError';
  constructor(
    readonly status: 429 | 503,
    readonly retryAfterSeconds: number,
    message: string,
  ) {
    super(message);
  }
}

export interface AcceptOutcome {
  accepted: number;
  rejected: number;
  /** The first rejections' reasons, for the partial-success message. */
  message: string;
}

/** How complete sessions are evaluated: `evaluate(ids)` resolves once they are (computed and stored, or enqueued). */
export interface SessionEvaluator {
  evaluate(sessionIds: readonly string[]): Promise<void>;
}

export interface ReceiverLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Evaluations of a session tried before it is given up. */
const EVALUATION_ATTEMPTS = 3;

/** Requests whose bodies are read and decoded at once; more get 429. */
export const MAX_REQUESTS = 16;

/** The run id of every receiver evaluation: a session evaluated again overwrites its results (their ids derive from it). */
export const RECEIVER_RUN_ID = 'receiver';

/** In-process evaluation: the configured metrics, stored, and (when an exporter is given) emitted as OTLP events. */
export function inProcessEvaluator(client: MCEClient, exporter?: EvaluationEventExporter): SessionEvaluator {
  return {
    async evaluate(ids) {
      const computations = await computeStoredOnes(client, ids);
      if (!exporter) return;
      for (const computation of computations) {
        const session = await client.store.getSession(computation.sessionId);
        if (session) exporter.emit(session, computation.results);
      }
      try {
        await exporter.flush();
      } catch (error) {
        throw new Error(`results stored, but ${(error as Error).message}`, { cause: error });
      }
    },
  };
}

/**
 * The spans a session can take: as file ingestion, a span whose session id holds a control character (a key of the
 * stores, printed in lines and URLs) is skipped with a warning.
 */
function usableSpans(spans: Iterable<SpanRecord>, warnings: WarningSink): SpanRecord[] {
  const out: SpanRecord[] = [];
  for (const span of spans) {
    const id = explicitSessionId(span);
    if (id !== undefined && hasControlCharacter(id)) {
      warnings.add({ code: 'malformed-span', message: `skipped span ${span.spanId}: session id ${quoteControlCharacters(id)} ${NO_CONTROL_CHARACTER}`, span: span.spanId });
    } else out.push(span);
  }
  return out;
}

/**
 * `computeAndStore` of the sessions stored: a session that completed with nothing to store (spans of no call kind
 * only), or deleted meanwhile, is left out rather than failing the others of its batch.
 */
async function computeStoredOnes(client: MCEClient, ids: readonly string[]): Promise<SessionComputation[]> {
  try {
    return await client.computeAndStore(ids, { runId: RECEIVER_RUN_ID });
  } catch (error) {
    if (!(error instanceof SessionNotFoundError)) throw error;
    const missing = new Set(error.sessionIds);
    const stored = ids.filter((id) => !missing.has(id));
    return stored.length > 0 && stored.length < ids.length ? computeStoredOnes(client, stored) : [];
  }
}

export class OtlpReceiver {
  readonly #assembler: SessionAssembler;
  readonly #warnings = new WarningSink(100);
  /** Spans decoded and being stored. */
  #inFlight = 0;
  /** Store writes, one at a time: parts of one session merge in order. */
  #writes: Promise<unknown> = Promise.resolve();
  /** Evaluations, one batch at a time. */
  #evaluations: Promise<unknown> = Promise.resolve();
  #toEvaluate = new Set<string>();
  #storeFailingUntil = 0;
  #closing = false;
  #requests = 0;
  /** Failed evaluations per session (tried again up to EVALUATION_ATTEMPTS), and those waiting to be tried again. */
  readonly #attempts = new Map<string, number>();
  readonly #retrying = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  readonly stats = { acceptedSpans: 0, rejectedSpans: 0, storedParts: 0, evaluatedSessions: 0, failedEvaluations: 0 };

  constructor(
    private readonly client: MCEClient,
    private readonly settings: ReceiverSettings,
    private readonly evaluator: SessionEvaluator | undefined,
    private readonly logger: ReceiverLogger,
  ) {
    this.#assembler = new SessionAssembler({ completeOnRoot: settings.completeOnRoot });
    // Checked ten times per idle period (at most every second), so a session completes at most a tenth of it late.
    const tick = Math.max(20, Math.min(1000, Math.floor(settings.sessionIdleMs / 10)));
    this.#timer = setInterval(() => void this.#sweep(), tick);
    this.#timer.unref();
  }

  /** Spans held in memory: waiting for their session id, or being stored. */
  get bufferedSpans(): number {
    return this.#assembler.pendingSpans + this.#inFlight;
  }

  /**
   * Admits one request (its body is then read and decoded), or refuses it at once: stopping, the store failing, the
   * buffer full, or MAX_REQUESTS bodies being read already (each may be max_body_mb: their memory is bounded too).
   * Call the function returned once the request is answered.
   */
  admit(): () => void {
    this.checkAvailable();
    if (this.#requests >= MAX_REQUESTS) throw new ReceiverBusyError(429, this.settings.retryAfterSeconds, `${MAX_REQUESTS} requests are being read already`);
    this.#requests++;
    let released = false;
    return () => {
      if (!released) this.#requests--;
      released = true;
    };
  }

  /** Refuses at once when the receiver cannot take a request now (stopping, the store failing, the buffer full). */
  checkAvailable(): void {
    const retry = this.settings.retryAfterSeconds;
    if (this.#closing) throw new ReceiverBusyError(503, retry, 'the receiver is stopping');
    if (Date.now() < this.#storeFailingUntil) throw new ReceiverBusyError(503, retry, 'the store is unavailable');
    if (this.bufferedSpans >= this.settings.maxBufferedSpans) throw new ReceiverBusyError(429, retry, `${this.bufferedSpans} spans buffered (receiver.max_buffered_spans ${this.settings.maxBufferedSpans})`);
  }

  /** Takes one decoded OTLP request (OTLP/JSON shape); resolves once its spans are stored or held. */
  async accept(request: unknown): Promise<AcceptOutcome> {
    this.checkAvailable();
    const warnings = new WarningSink(5);
    const spans = usableSpans(otlpSpans(request, warnings, { file: 'POST /v1/traces' }), warnings);
    const rejected = warnings.counts['malformed-span'] ?? 0;
    const message = warnings.list.map((w) => w.message).join('; ');
    if (this.bufferedSpans + spans.length > this.settings.maxBufferedSpans) {
      throw new ReceiverBusyError(429, this.settings.retryAfterSeconds, `${spans.length} spans would pass receiver.max_buffered_spans (${this.settings.maxBufferedSpans}; ${this.bufferedSpans} buffered)`);
    }
    this.#inFlight += spans.length;
    try {
      const parts = this.#assembler.add(spans, Date.now());
      await this.#store(parts, new Set(spans));
    } finally {
      this.#inFlight -= spans.length;
    }
    this.stats.acceptedSpans += spans.length;
    this.stats.rejectedSpans += rejected;
    if (this.settings.completeOnRoot && spans.some((s) => s.parentSpanId === undefined)) void this.#sweep();
    return { accepted: spans.length, rejected, message };
  }

  /**
   * Stores parts, serialised with the other writes; a failure puts the held spans of earlier requests back (not
   * `resent`, the failed request's own: its client sends them again) and answers 503 for a while.
   */
  async #store(parts: readonly SessionPart[], resent?: ReadonlySet<SpanRecord>): Promise<void> {
    if (parts.length === 0) return;
    const write = this.#writes.then(() => this.client.store.writeSessions(parts.map((p) => this.#session(p)).filter((s): s is Session => s !== undefined)));
    this.#writes = write.catch(() => undefined);
    try {
      await write;
      this.stats.storedParts += parts.length;
    } catch (error) {
      const now = Date.now();
      for (const part of parts) this.#assembler.restore(part, now, resent);
      this.#storeFailingUntil = now + this.settings.retryAfterSeconds * 1000;
      this.logger.error({ err: error, sessions: parts.map((p) => p.sessionId) }, 'receiver: storing spans failed; answering 503 until the store is back');
      throw new ReceiverBusyError(503, this.settings.retryAfterSeconds, `the store is unavailable: ${(error as Error).message}`);
    }
  }

  /** A part as a session; undefined when it holds no call (HTTP spans only, say), as file ingestion drops it. */
  #session(part: SessionPart): Session | undefined {
    const session = normaliseSession(part.sessionId, part.spans, { warnings: this.#warnings });
    this.#logWarnings();
    return elementCount(session) > 0 || session.mcpServers.length > 0 ? session : undefined;
  }

  #logWarnings(): void {
    if (this.#warnings.list.length === 0) return;
    const list: IngestWarning[] = this.#warnings.list.splice(0);
    // A part whose parent spans come in a later request names parents it does not hold: expected here (the store links
    // the parts), so said at info, not as a warning on every batch.
    for (const warning of list) (warning.code === 'unknown-parent' ? this.logger.info : this.logger.warn).call(this.logger, { warning }, `receiver: ${warning.message}`);
  }

  /** Stores the traces that went idle without a session id, and evaluates the sessions that are complete. */
  async #sweep(): Promise<void> {
    if (Date.now() < this.#storeFailingUntil) return;
    const { parts, complete } = this.#assembler.due(Date.now(), this.settings.sessionIdleMs);
    try {
      await this.#store(parts);
    } catch {
      return; // held again; the next sweep after the store is back retries
    }
    this.#schedule(complete);
  }

  /** Evaluates complete sessions in batches, one batch at a time; ids completed meanwhile join the next batch. */
  #schedule(ids: readonly string[]): void {
    if (!this.evaluator || ids.length === 0) return;
    for (const id of ids) this.#toEvaluate.add(id);
    this.#evaluations = this.#evaluations.then(async () => {
      // After the writes queued so far: a session's last part may still be on its way to the store.
      await this.#writes;
      const batch = [...this.#toEvaluate];
      this.#toEvaluate.clear();
      if (batch.length === 0) return;
      try {
        await this.evaluator!.evaluate(batch);
        this.stats.evaluatedSessions += batch.length;
        for (const id of batch) this.#attempts.delete(id);
      } catch (error) {
        this.#evaluationFailed(batch, error);
      }
    });
  }

  /**
   * A batch whose evaluation failed (the store or the broker down, say) is tried again after Retry-After, up to
   * EVALUATION_ATTEMPTS times in all; then given up, said in an error naming its sessions.
   */
  #evaluationFailed(batch: readonly string[], error: unknown): void {
    const again: string[] = [];
    for (const id of batch) {
      const attempts = (this.#attempts.get(id) ?? 0) + 1;
      if (attempts < EVALUATION_ATTEMPTS && !this.#closing) {
        this.#attempts.set(id, attempts);
        again.push(id);
      } else this.#attempts.delete(id);
    }
    const given = batch.length - again.length;
    this.stats.failedEvaluations += given;
    this.logger.error({ err: error, sessions: batch, retried: again.length }, given > 0 ? `receiver: evaluating ${given} complete session(s) failed; given up` : 'receiver: evaluating complete sessions failed; trying again after Retry-After');
    if (again.length === 0) return;
    for (const id of again) this.#retrying.add(id);
    setTimeout(() => {
      const ids = again.filter((id) => this.#retrying.delete(id));
      this.#schedule(ids);
    }, this.settings.retryAfterSeconds * 1000).unref();
  }

  /** Resolves once the writes and evaluations started so far are done (tests, the benchmark). */
  async settled(): Promise<void> {
    await this.#writes;
    await this.#evaluations;
  }

  /**
   * Stops taking requests (503), stores every span still held (traces without a session id as sessions of their own),
   * evaluates every open session, and waits for it all. Spans that cannot be stored are logged with their count and
   * traces: refused or stored, never dropped silently.
   */
  async close(): Promise<{ flushedSpans: number; evaluated: number }> {
    this.#closing = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#writes;
    const { parts, complete } = this.#assembler.drain();
    const flushedSpans = parts.reduce((n, p) => n + p.spans.length, 0);
    try {
      this.#storeFailingUntil = 0;
      await this.#store(parts);
    } catch (error) {
      const traces = [...new Set(parts.flatMap((p) => p.spans.map((s: SpanRecord) => s.traceId)))];
      this.logger.error({ err: error, spans: flushedSpans, traces }, `receiver: ${flushedSpans} buffered spans could not be stored on shutdown`);
      throw error;
    }
    // Sessions waiting to be evaluated again are tried once more now, with the open ones.
    const retrying = [...this.#retrying];
    this.#retrying.clear();
    this.#schedule([...complete, ...retrying]);
    await this.#evaluations;
    return { flushedSpans, evaluated: complete.length };
  }
}
