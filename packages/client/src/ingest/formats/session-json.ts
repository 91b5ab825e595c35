/** The project's own session JSON (one session or `{ "sessions": [...] }`), validated with core's SessionFileSchema. */
import { issueLines, SessionFileSchema, SessionSchema, type Session } from '@mce/core';
import { isObj } from '../messages.js';

export function isSessionDocument(v: unknown): boolean {
  if (!isObj(v)) return false;
  if (Array.isArray(v.sessions)) return true;
  if (v.kind === 'Session') return true;
  return typeof v.id === 'string' && typeof v.startTime === 'number' && typeof v.endTime === 'number' && !('resourceSpans' in v) && !('SpanId' in v);
}

/** The `{ "sessions": [...] }` member of core's SessionFileSchema. */
const [SessionListSchema] = SessionFileSchema.options;

/**
 * Sessions of a parsed session document, or its offending fields (`path: message`, the first five and how many more). The schema is
 * picked by shape (a `sessions` list, else one session) rather than tried as a union, whose failure names only the root.
 */
export function parseSessionDocument(v: unknown): { sessions: Session[] } | { issues: string[] } {
  // A `sessions` member makes it a list document even when it is no list: its fault is then named, not a session's.
  const parsed = isObj(v) && 'sessions' in v && v.kind !== 'Session' ? SessionListSchema.safeParse(v) : SessionSchema.safeParse(v);
  if (!parsed.success) {
    const lines = issueLines(parsed.error);
    return { issues: lines.length > 5 ? [...lines.slice(0, 5), `and ${lines.length - 5} more`] : lines };
  }
  return { sessions: ('sessions' in parsed.data ? parsed.data.sessions : [parsed.data]) as Session[] };
}

/** Sessions of a parsed session document; throws an Error whose message lists the offending fields. */
export function sessionsFromDocument(v: unknown): Session[] {
  const doc = parseSessionDocument(v);
  if ('issues' in doc) throw new Error(`not a valid session file (${doc.issues.join('; ')})`);
  return doc.sessions;
}
