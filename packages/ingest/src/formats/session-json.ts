/** The project's own session JSON (one session or `{ "sessions": [...] }`), validated with core's SessionFileSchema. */
import { describeIssues, isSessionListDocument, SessionFileSchema, SessionSchema, UnknownFields, type Session, type UnknownFieldNote } from '@mce/core';
import type { z } from 'zod';
import type { IngestWarning } from '../errors.js';
import { locateInJson, positionText, type JsonPlace, type JsonPosition } from '../json-position.js';
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
 * One fault of a session document, `path: message`. `place`: where it is in the document (the value at the path, an
 * unknown field's key, the object lacking a required field), to name its line and column in a whole document's text.
 * A summary (`and 3 more`) has neither path nor place.
 */
export interface DocumentIssue {
  path?: string;
  message: string;
  place?: JsonPlace;
}

/** At most five of a list, then how many more. */
const firstFive = (issues: DocumentIssue[]): DocumentIssue[] => (issues.length > 5 ? [...issues.slice(0, 5), { message: `and ${issues.length - 5} more` }] : issues);

/**
 * zod's issues as core names them (`sessions.1.startTime: …`), each with its place: the value at its path; for fields
 * a strict object does not allow, the name of the first one (the path names it too when it is the only one).
 */
export const schemaIssues = (error: z.ZodError): DocumentIssue[] =>
  describeIssues(error).map((issue, i) => {
    const zodIssue = error.issues[i];
    const path = (zodIssue?.path ?? []).filter((k): k is string | number => typeof k !== 'symbol');
    if (zodIssue?.code !== 'unrecognized_keys' || zodIssue.keys.length === 0) return { ...issue, place: { path } };
    const keyPath = [...path, zodIssue.keys[0]!];
    return { ...issue, ...(zodIssue.keys.length === 1 ? { path: keyPath.join('.') } : {}), place: { path: keyPath, key: true } };
  });

/** Where an unknown field's note points in the document: the key of its first field. */
export const notePlace = (n: UnknownFieldNote): JsonPlace | undefined => (n.keys === undefined ? undefined : { path: n.keys, key: true });

/** An unknown field's note as an issue; its place is the field's key. */
const noteIssue = (n: UnknownFieldNote): DocumentIssue => {
  const place = notePlace(n);
  return n.path === undefined || place === undefined || !n.message.startsWith(`${n.path}: `)
    ? { message: n.message }
    : { path: n.path, message: n.message.slice(n.path.length + 2), place };
};

/** An issue as a message names it: `path (line N, column M): message` when its position is known. */
export const issueText = (issue: DocumentIssue, at?: JsonPosition): string =>
  issue.path === undefined ? issue.message : `${issue.path}${positionText(at)}: ${issue.message}`;

/** The issues of a JSON text, each named with its line and column in it (looked up only now), `; `-joined. */
export const issuesInText = (text: string, issues: readonly DocumentIssue[]): string => {
  const found = locateInJson(text, issues.map((i) => i.place));
  return issues.map((issue, i) => issueText(issue, found[i])).join('; ');
};

/**
 * Sessions of a parsed session document and the fields it has that the format does not define (ignored, for the
 * caller to warn about); or its offending fields (`path: message`, the first five and how many more), followed by the
 * unknown fields (a misspelt `startTme` is usually why `startTime` is missing). The schema is picked by shape (a
 * `sessions` list, else one session) rather than tried as a union, whose failure names only the root. `line`: where
 * the document is in its file (JSON Lines), kept with its unknown fields.
 */
export function parseSessionDocument(v: unknown, line?: number): { sessions: Session[]; unknownFields: UnknownFields } | { issues: DocumentIssue[] } {
  const unknownFields = new UnknownFields().check(v, line);
  // A `sessions` member makes it a list document even when it is no list: its fault is then named, not a session's.
  const parsed = isSessionListDocument(v) ? SessionListSchema.safeParse(v) : SessionSchema.safeParse(v);
  if (!parsed.success) {
    return { issues: [...firstFive(schemaIssues(parsed.error)), ...firstFive(unknownFields.notes().map(noteIssue))] };
  }
  return { sessions: ('sessions' in parsed.data ? parsed.data.sessions : [parsed.data]) as Session[], unknownFields };
}

/**
 * Warnings for the unknown fields of a file's session documents: one per place, naming the file and (JSON Lines) line;
 * each with the place of its first field, for a whole document to name its line and column.
 */
export function unknownFieldWarnings(fields: UnknownFields, file: string): { warning: IngestWarning; place: JsonPlace | undefined }[] {
  return fields.notes().map((note) => ({
    warning: {
      code: 'unknown-field',
      message: note.message,
      file,
      ...(note.line === undefined ? {} : { line: note.line }),
      ...(note.path === undefined ? {} : { path: note.path }),
      count: note.count,
    },
    place: notePlace(note),
  }));
}

/**
 * For a document of no known format: when it has an `id` and a field whose name is close to one of a session
 * (`startTme`), the likely session fields meant, else none. A session misspelling `startTime` is not recognised as
 * one, and would otherwise only be told it is in no known format.
 */
export function misspeltSessionFields(v: unknown): DocumentIssue[] {
  if (!isObj(v) || typeof v.id !== 'string') return [];
  return firstFive(new UnknownFields().check(v).notes().filter((n) => n.suggestion !== undefined).map(noteIssue));
}

/** The likely session fields meant as a message's ending (`; as a session: startTme: unknown field, … (did you mean "startTime"?)`), or ''. */
export const misspeltSessionHint = (fields: readonly DocumentIssue[], positions: readonly (JsonPosition | undefined)[] = []): string =>
  fields.length === 0 ? '' : `; as a session: ${fields.map((f, i) => issueText(f, positions[i])).join('; ')}`;
