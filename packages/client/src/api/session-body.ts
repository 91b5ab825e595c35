/**
 * A `POST /sessions` body read into its sessions and warnings, or the 400 that names its faults: the whole of the
 * request's work that needs no store, so that it can run off the event loop (see body-reader.ts).
 */
import type { Session } from '@mce/core';
import { issuesInText, notePlace, parseSessionDocument } from '@mce/ingest';
import { locateInJson, positionText, syntaxErrorPosition } from '@mce/ingest';
import { excessDepthAt, MAX_JSON_DEPTH } from '@mce/ingest';

export interface UnknownFieldWarning {
  code: 'unknown-field';
  message: string;
  path?: string;
  line?: number;
  column?: number;
  count: number;
  suggestion?: string;
}

export type SessionBody = { sessions: Session[]; warnings: UnknownFieldWarning[] } | { error: string };

/** The sessions of a body's text, or the error a 400 answers (where it stops being JSON, the fields at fault). */
export function readSessionBody(text: string): SessionBody {
  try {
    return read(text);
  } catch (error) {
    // A document nested deeper than a validator's stack: the client's input, not the server's failure.
    if (error instanceof RangeError && /call stack/i.test(error.message)) return { error: 'request body is nested too deeply' };
    throw error;
  }
}

function read(text: string): SessionBody {
  const tooDeep = excessDepthAt(text);
  if (tooDeep) return { error: `request body nests deeper than ${MAX_JSON_DEPTH} levels${positionText(tooDeep)}` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { error: `request body is not JSON${positionText(syntaxErrorPosition(text, err))}` };
  }
  const doc = parseSessionDocument(value);
  // Places in the body's text (line and column) are looked up only when there is something to name.
  if ('issues' in doc) return { error: `not an mce session document: ${issuesInText(text, doc.issues)}` };
  // Fields the format does not define are ignored, and said: a misspelt one would otherwise go unnoticed.
  const notes = doc.unknownFields.notes();
  const found = locateInJson(text, notes.map(notePlace));
  const warnings = notes.map(({ message, count, path, suggestion }, i): UnknownFieldWarning => {
    const at = found[i];
    return {
      code: 'unknown-field',
      message,
      ...(path === undefined ? {} : { path }),
      ...(at ? { line: at.line, column: at.column } : {}),
      count,
      ...(suggestion === undefined ? {} : { suggestion }),
    };
  });
  return { sessions: doc.sessions, warnings };
}
