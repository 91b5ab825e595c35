/**
 * Failed calls a trace does not mark as failed: a tool's result that is an error by its shape (MCP's `isError`,
 * `ok: false`, an `error` field, an HTTP status of 400 or more) or by its opening words (`Error: …`, `Not Found`,
 * `403 Forbidden`, `ENOENT: …`, `rate limit exceeded`, `thread_not_found`). Only the opening is read: a result that
 * lists issues titled "Gateway timeout on /export" is data, not a failure.
 */
import type { MCPCallRecord, MCPInteraction } from '../interaction.js';
import { valueText } from '../interaction.js';

const ERROR_OPENING =
  /^\W{0,3}(?:error\b|errors?:|failed|failure|fatal|exception|traceback|unable to|could not|cannot|can't|access denied|permission denied|denied|forbidden|unauthori[sz]ed|not found|no such|does not exist|timed? ?out|time-out|rate[ -]?limit|too many requests|service unavailable|bad request|internal server error)/i;
/** A status line: `HTTP/1.1 502`, `403 Forbidden`, `404 Not Found` (not `450 files indexed`). */
const STATUS_OPENING = /^\W{0,3}(?:HTTP\/?[\d.]*\s*[45]\d\d\b|[45]\d\d\s*[:-]?\s*(?:[A-Z][a-z]+|error|ERROR)\b)/;
/** A system error code opening the text: `ENOENT: no such file`, `ECONNRESET`. */
const ERRNO_OPENING = /^E[A-Z]{3,}\b/;
/** A bare status code as Slack-like APIs return it: `not_in_channel`, `invalid_auth`, `channel_not_found`. */
const ERROR_CODE = /^[a-z]+(?:_[a-z]+)+$/;
const ERROR_CODE_WORD = /(?:^|_)(?:not|no|invalid|missing|denied|forbidden|error|failed|limited|expired|unknown|restricted)(?:_|$)/;

function objectFailed(o: Record<string, unknown>): boolean {
  if (o.isError === true || o.ok === false || o.success === false) return true;
  if (o.error !== undefined && o.error !== null && o.error !== false && o.error !== '') return true;
  for (const key of ['status', 'statusCode', 'status_code']) {
    const v = o[key];
    if (typeof v === 'number' && v >= 400 && v < 600) return true;
    if (typeof v === 'string' && /^(?:error|failed|failure)$/i.test(v)) return true;
  }
  return false;
}

/** The error a result shows by its shape or opening words, or undefined. */
export function errorByShape(result: unknown): string | undefined {
  if (result === undefined || result === null) return undefined;
  if (typeof result === 'object' && !Array.isArray(result)) {
    const o = result as Record<string, unknown>;
    if (objectFailed(o)) return valueText(result) || 'error';
    // An MCP result's text content: `{content: [{type: 'text', text: 'Error: …'}]}`.
    const first = Array.isArray(o.content) ? (o.content[0] as { text?: unknown } | undefined) : undefined;
    return typeof first?.text === 'string' ? errorByShape(first.text) : undefined;
  }
  if (typeof result !== 'string') return undefined;
  const text = result.trim();
  if (text.startsWith('{')) {
    try {
      return errorByShape(JSON.parse(text) as unknown);
    } catch {
      // not JSON: judged by its words
    }
  }
  if (ERROR_CODE.test(text) && ERROR_CODE_WORD.test(text)) return text;
  const opening = text.slice(0, 80);
  return ERROR_OPENING.test(opening) || STATUS_OPENING.test(opening) || ERRNO_OPENING.test(opening) ? text : undefined;
}

/** The interaction with every call whose result is an error by its shape marked failed (the same object if none). */
export function withErrorsByShape(interaction: MCPInteraction): MCPInteraction {
  let changed = false;
  const calls = interaction.calls.map((call): MCPCallRecord => {
    if (call.error !== undefined) return call;
    const error = errorByShape(call.result);
    if (error === undefined) return call;
    changed = true;
    return { ...call, error };
  });
  return changed ? { ...interaction, calls } : interaction;
}
