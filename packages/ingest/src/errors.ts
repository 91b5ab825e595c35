/** Errors and warnings of trace ingestion. An IngestError always names the file (and line for JSON Lines). */
import { MceError } from '@mce/core';

export class IngestError extends MceError {
  readonly kind = 'bad-input' as const;
  override readonly name = 'IngestError';
  /** With `line`, the column of the fault (1-based) where it is known: invalid JSON in a file that is one document. */
  readonly column?: number;
  constructor(
    message: string,
    readonly file: string,
    readonly line?: number,
    options?: { cause?: unknown; column?: number },
  ) {
    super(`${file}${line !== undefined ? `:${line}` : ''}: ${message}`, options?.cause === undefined ? undefined : { cause: options.cause });
    if (line !== undefined && options?.column !== undefined) this.column = options.column;
  }
}

export type IngestWarningCode =
  | 'malformed-span'
  | 'malformed-line'
  | 'session-reemitted'
  | 'duplicate-span'
  | 'unknown-parent'
  | 'empty-file'
  | 'no-calls'
  | 'unknown-field'
  | 'no-times'
  | 'mcp-server-unknown';

export interface IngestWarning {
  code: IngestWarningCode;
  message: string;
  file?: string;
  /**
   * The line of the place named (1-based): in JSON Lines, the record's line; in a file that is one JSON document, the
   * line of the place (for a warning about a span, where the span begins).
   */
  line?: number;
  /**
   * With `line`, the column of the place named (1-based, in UTF-16 code units): in a file that is one JSON document;
   * in JSON Lines, for a place inside the line's record found while it was read (ingestion.md, "Warnings name the place").
   */
  column?: number;
  /** The span named by the warning (span id, or span name when the id is unreadable). */
  span?: string;
  sessionId?: string;
  /** `unknown-field`: JSON path of the first such field (in the document of its line, for JSON Lines). */
  path?: string;
  /** `unknown-field`: how many fields the warning stands for (the same field at the same place of many calls). */
  count?: number;
}

/** Collects warnings and counts them per code; shared by the readers and the normaliser of one run. */
export class WarningSink {
  readonly list: IngestWarning[] = [];
  readonly counts: Partial<Record<IngestWarningCode, number>> = {};
  /** Keep at most this many warning objects (counts stay exact). */
  constructor(private readonly keep = 1000) {}
  /** Counts the warning, and keeps it while fewer than `keep` are kept; whether it was kept. */
  add(w: IngestWarning): boolean {
    this.counts[w.code] = (this.counts[w.code] ?? 0) + 1;
    if (this.list.length >= this.keep) return false;
    this.list.push(w);
    return true;
  }
  get total(): number {
    return Object.values(this.counts).reduce((a, b) => a + (b ?? 0), 0);
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
