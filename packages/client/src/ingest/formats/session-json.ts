/** The project's own session JSON (one session or `{ "sessions": [...] }`), validated with core's SessionFileSchema. */
import { isSessionListDocument, issueLines, SessionFileSchema, SessionSchema, UnknownFields, type Session } from '@mce/core';
import type { IngestWarning } from '../errors.js';
import { isObj } from '../messages.js';

export function isSessionDocument(v: unknown): boolean {
  if (!isObj(v)) return false;
  if (Array.isArray(v.sessions)) return true;
  if (v.kind === 'Session') return true;
  return typeof v.id === 'string' && typeof v.startTime === 'number' && typeof v.endTime === 'number' && !('resourceSpans' in v) && !('SpanId' in v);
}

/** The `{ "sessions": [...] }` member of core's SessionFileSchema. */
const [SessionListSchema] = SessionFileSchema.options;

/** At most five lines of a list, then how many more. */
const firstFive = (lines: string[]) => (lines.length > 5 ? [...lines.slice(0, 5), `and ${lines.length - 5} more`] : lines);

/**
 * Sessions of a parsed session document and the fields it has that the format does not define (ignored, for the
 * caller to warn about); or its offending fields (`path: message`, the first five and how many more), followed by the
 * unknown fields (a misspelt `startTme` is usually why `startTime` is missing). The schema is picked by shape (a
 * `sessions` list, else one session) rather than tried as a union, whose failure names only the root. `line`: where
 * the document is in its file (JSON Lines), kept with its unknown fields.
 */
export function parseSessionDocument(v: unknown, line?: number): { sessions: Session[]; unknownFields: UnknownFields } | { issues: string[] } {
  const unknownFields = new UnknownFields().check(v, line);
  // A `sessions` member makes it a list document even when it is no list: its fault is then named, not a session's.
  const parsed = isSessionListDocument(v) ? SessionListSchema.safeParse(v) : SessionSchema.safeParse(v);
  if (!parsed.success) {
    return { issues: [...firstFive(issueLines(parsed.error)), ...firstFive(unknownFields.notes().map((n) => n.message))] };
  }
  return { sessions: ('sessions' in parsed.data ? parsed.data.sessions : [parsed.data]) as Session[], unknownFields };
}

/** Warnings for the unknown fields of a file's session documents: one per place, naming the file and (JSON Lines) line. */
export function unknownFieldWarnings(fields: UnknownFields, file: string): IngestWarning[] {
  return fields.notes().map(({ message, count, path, line }) => ({
    code: 'unknown-field',
    message,
    file,
    ...(line === undefined ? {} : { line }),
    ...(path === undefined ? {} : { path }),
    count,
  }));
}

/**
 * For a document of no known format: when it has an `id` and a field whose name is close to one of a session
 * (`startTme`), the likely session fields meant (`; as a session: startTme: unknown field, … (did you mean
 * "startTime"?)`), else ''. A session misspelling `startTime` is not recognised as one, and would otherwise only be
 * told it is in no known format.
 */
export function misspeltSessionHint(v: unknown): string {
  if (!isObj(v) || typeof v.id !== 'string') return '';
  const near = new UnknownFields().check(v).notes().filter((n) => n.suggestion !== undefined);
  return near.length === 0 ? '' : `; as a session: ${firstFive(near.map((n) => n.message)).join('; ')}`;
}
