/** The project's own session JSON (one session or `{ "sessions": [...] }`), validated with core's SessionFileSchema. */
import { describeIssues, SessionFileSchema, SessionSchema, type Session } from '@mce/core';

export function isSessionDocument(v: unknown): boolean {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  if (Array.isArray(o.sessions)) return true;
  if (o.kind === 'Session') return true;
  return typeof o.id === 'string' && typeof o.startTime === 'number' && typeof o.endTime === 'number' && !('resourceSpans' in o) && !('SpanId' in o);
}

/** Sessions of a parsed session document; throws an Error whose message lists the offending fields. */
export function sessionsFromDocument(v: unknown): Session[] {
  const parsed = SessionFileSchema.safeParse(v);
  if (!parsed.success) {
    const issues = describeIssues(parsed.error).slice(0, 5).map((i) => `${i.path}: ${i.message}`);
    throw new Error(`not a valid session file (${issues.join('; ')})`);
  }
  const data = parsed.data;
  return ('sessions' in data ? data.sessions : [data]) as Session[];
}

/** One session object (a JSON Lines record). */
export function sessionFromRecord(v: unknown): Session {
  const parsed = SessionSchema.safeParse(v);
  if (!parsed.success) {
    const issues = describeIssues(parsed.error).slice(0, 5).map((i) => `${i.path}: ${i.message}`);
    throw new Error(`not a valid session (${issues.join('; ')})`);
  }
  return parsed.data as Session;
}
