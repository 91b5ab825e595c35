/**
 * A session's service name, from its first span's `service.name`. The stores keep it as text, which has no NUL
 * (PostgreSQL replaced one silently, SQLite kept it) and no lone surrogate (UTF-8 has none): each becomes U+FFFD
 * here, on every store alike, and the span is named in a warning. The session format refuses such a name outright;
 * a trace keeps its session.
 */
import { hasLoneSurrogate, quoteControlCharacters, withoutLoneSurrogates } from '@mce/core';
import type { SpanRecord } from '../span.js';
import type { Context } from './node.js';

export function serviceNameOf(first: SpanRecord | undefined, ctx: Context): string | undefined {
  const name = first?.resource['service.name'];
  if (typeof name !== 'string') return undefined;
  if (!name.includes('\u0000') && !hasLoneSurrogate(name)) return name;
  const kept = withoutLoneSurrogates(name.replaceAll('\u0000', '\ufffd'));
  const what = name.includes('\u0000') ? 'a NUL character (U+0000)' : 'a lone surrogate (\\ud800–\\udfff without its pair)';
  ctx.warnAbout(first!, {
    code: 'malformed-span',
    message: `span ${first!.spanId}: service.name ${quoteControlCharacters(name)} holds ${what}, which no store's text can hold: kept as ${quoteControlCharacters(kept)}`,
    span: first!.spanId,
    sessionId: ctx.sessionId,
  });
  return kept;
}
