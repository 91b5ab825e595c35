/**
 * Opik wraps the AI SDK's error in its own ("Failed to generate text with model …"): the cause's message is added so
 * that the failed result says what the endpoint answered, and the error is marked transient when the SDK says a
 * retry could succeed (a 429 or 5xx, or its retries used up on one).
 */

const MAX_DEPTH = 5;

function causesOf(error: Error): Error[] {
  const chain: Error[] = [];
  let cause: unknown = error.cause;
  while (cause instanceof Error && chain.length < MAX_DEPTH) {
    chain.push(cause);
    cause = cause.cause;
  }
  return chain;
}

const retryable = (error: Error) => (error as { isRetryable?: unknown }).isRetryable === true || error.name === 'AI_RetryError';

export function explained(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const causes = causesOf(error);
  const detail = causes.map((c) => c.message).find((m) => m && !error.message.includes(m));
  const transient = [error, ...causes].some(retryable);
  if (!detail && !transient) return error;
  const out = new Error(detail ? `${error.message}: ${detail}` : error.message, { cause: error });
  out.name = error.name;
  return transient ? Object.assign(out, { transient: true }) : out;
}
