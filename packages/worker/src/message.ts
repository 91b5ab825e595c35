/**
 * Queue messages: `{"session_id": "…"}` or `{"session_ids": ["…", …]}`. Each message has a stable key (its
 * `message_id`, else the sha256 of its body) from which the run id of each of its sessions derives, so a redelivered
 * or retried message overwrites its results instead of adding new ones.
 */
import { createHash } from 'node:crypto';

export type ParsedMessage = { ok: true; sessionIds: string[] } | { ok: false; error: string };

/**
 * The body as bytes. The AMQP client hands over JSON bodies already parsed and text bodies as strings; with the
 * message's content type, a JSON body that is a string is written back as JSON (with its quotes), not as that text.
 * (A JSON body's whitespace is not kept: the bytes hold the same JSON value.)
 */
export function bodyBytes(body: unknown, contentType?: string): Buffer {
  if (Buffer.isBuffer(body)) return body;
  if (typeof body === 'string' && contentType !== 'application/json') return Buffer.from(body, 'utf8');
  return Buffer.from(JSON.stringify(body) ?? '', 'utf8');
}

export function parseMessage(body: unknown): ParsedMessage {
  let value: unknown = body;
  if (Buffer.isBuffer(body) || typeof body === 'string') {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    try {
      value = JSON.parse(text);
    } catch {
      return { ok: false, error: `body is not JSON: ${truncate(text, 80)}` };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: 'body must be a JSON object with "session_id" or "session_ids"' };
  }
  const record = value as Record<string, unknown>;
  if ('session_id' in record && 'session_ids' in record) {
    return { ok: false, error: 'body has both "session_id" and "session_ids"' };
  }
  if ('session_id' in record) {
    const id = record.session_id;
    if (!isSessionId(id)) return { ok: false, error: '"session_id" must be a non-empty string without NUL characters' };
    return { ok: true, sessionIds: [id] };
  }
  if ('session_ids' in record) {
    const ids = record.session_ids;
    if (!Array.isArray(ids) || ids.length === 0 || !ids.every(isSessionId)) {
      return { ok: false, error: '"session_ids" must be a non-empty array of non-empty strings without NUL characters' };
    }
    return { ok: true, sessionIds: [...new Set(ids)] };
  }
  return { ok: false, error: 'body has neither "session_id" nor "session_ids"' };
}

/** The message's stable identity: its message_id, else `sha256:<hex of the body>`. */
export function messageKey(messageId: string | undefined, body: unknown): string {
  if (messageId) return messageId;
  return `sha256:${createHash('sha256').update(bodyBytes(body)).digest('hex')}`;
}

/** The run id under which a session of a message is computed: the same message and session always give the same id. */
export function runIdFor(key: string, sessionId: string): string {
  return createHash('sha256').update(key).update('\0').update(sessionId).digest('hex').slice(0, 32);
}

/** A session id the stores can hold (PostgreSQL refuses a NUL in text, and would fail the whole batch on it). */
function isSessionId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && !value.includes('\0');
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
