/**
 * The REST API's answer to a failed request, from the error's kind (core's errorKind), in one place: bad input 400,
 * not found 404, conflict 409, unavailable 503 with Retry-After, anything else 500 (logged by the caller, never shown).
 * The few answers HTTP has a more exact status for are named first.
 */
import { errorKind, isStoreLocked, MceError, MetricSelectionError } from '@mce/core';
import { ComputationsFullError } from './computations.js';
import { BodyTooLargeError } from './body-limit.js';
import { BodyNeedsMoreMemoryError } from './body-reader.js';

export interface ErrorAnswer {
  status: 400 | 404 | 409 | 413 | 415 | 429 | 500 | 503;
  /** The client's message; for a 500 the caller writes its own (the cause is for the log). */
  message: string;
  retryAfterSeconds?: number;
}

/** Unsupported content type (415): bad input HTTP has its own status for. */
export class UnsupportedMediaTypeError extends MceError {
  readonly kind = 'bad-input' as const;
}

/** A request the API refuses as it stands (400). */
export class BadRequestError extends MceError {
  readonly kind = 'bad-input' as const;
}

const KIND_STATUS = { 'bad-input': 400, 'not-found': 404, conflict: 409, unavailable: 503, internal: 500 } as const;

export function errorAnswer(error: unknown): ErrorAnswer {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof UnsupportedMediaTypeError) return { status: 415, message };
  if (error instanceof ComputationsFullError) return { status: 429, message, retryAfterSeconds: 5 };
  if (error instanceof BodyNeedsMoreMemoryError || error instanceof BodyTooLargeError) return { status: 413, message };
  if ((error as { code?: string } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return { status: 413, message: 'request body needs more memory to read than the server gives one body' };
  }
  // A document nested deeper than the validator's stack: the client's input, not the server's failure.
  if (error instanceof RangeError && /call stack/i.test(message)) return { status: 400, message: 'request body is nested too deeply' };
  const status = KIND_STATUS[errorKind(error)];
  if (status === 503) {
    // An error may say how long to wait (a shutdown, 5 s); a busy store or reader is worth a retry within the second.
    const retryAfterSeconds = (error as { retryAfterSeconds?: number }).retryAfterSeconds ?? 1;
    return { status, message: isStoreLocked(error) ? `the store is busy (${message}); retry` : message, retryAfterSeconds };
  }
  return { status, message: error instanceof MetricSelectionError ? `metrics: ${message}` : message };
}
