/**
 * Reading trace and session files: format detection, whole-file reading, and streaming of JSON Lines with flat
 * memory. Public entry points: `readSessions`, `streamSessions`, `detectFormat`, `writeSessionsFile`.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { realpath, rename, rm, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { elementCount, hasControlCharacter, NO_CONTROL_CHARACTER, quoteControlCharacters, UnknownFields, type Session } from '@mce/core';
import { errorMessage, IngestError, WarningSink, type IngestWarning } from './errors.js';
import { parseAnyAgentText } from './formats/any-agent.js';
import { clickHouseListRowSpan, clickHouseRowSpan, clickHouseSpans, isClickHouseRow } from './formats/clickhouse.js';
import { SPAN_FORMAT_NAMES, SPAN_FORMATS, spanFormat, spanFormatOf, type SpanFormatName } from './formats/index.js';
import { isOtlpRequest, otlpSpans, warnAt, type Where } from './formats/otlp.js';
import { isProtoFile, otlpProtoFileSpans } from './formats/otlp-proto.js';
import { issueText, isSessionDocument, misspeltSessionFields, misspeltSessionHint, parseSessionDocument, unknownFieldWarnings, type DocumentIssue } from './formats/session-json.js';
import { DocumentPositions, documentText, locateInJson, locateOnLine, PendingPositions, positionText, syntaxErrorPosition, type JsonPlace, type JsonPosition } from './json-position.js';
import { jsonListItems } from './json-array-stream.js';
import { ConcatenatedValues, JsonTextError, parseJsonText } from './json-values.js';
import { readLines } from './lines.js';
import { normaliseSession } from './normalise.js';
import { explicitSessionId, sessionIdSource } from './session-id.js';
import { spanPath, type SpanRecord } from './span.js';
import { fileEncoding, readText, textChunks, type FileEncoding } from './text.js';

export type TraceFormat = 'otlp-json' | 'otlp-jsonl' | 'clickhouse' | 'session-json' | 'otlp-proto' | SpanFormatName;
export const TRACE_FORMATS: readonly TraceFormat[] = ['otlp-json', 'otlp-jsonl', 'clickhouse', 'session-json', 'otlp-proto', ...SPAN_FORMAT_NAMES];

export interface IngestOptions {
  /** Force a format instead of detecting it from the content. */
  format?: TraceFormat;
  /** Vendor attribute keys holding the session id, read after the standard ones (SPEC §1). */
  sessionKeys?: readonly string[];
}

export interface StreamOptions extends IngestOptions {
  /** Emit a session once none of its spans was seen for this many spans (JSON Lines only). Default 50,000. */
  windowSpans?: number;
  /** Called as each file is opened (for progress). */
  onFile?: (path: string, index: number) => void;
  /**
   * A file that cannot be read (missing, empty, invalid JSON, no known format) is skipped, with nothing of it kept,
   * and the others are still read; without it, such a file ends the read with its IngestError.
   */
  skipUnreadable?: boolean;
  /** Called once per file when it has been read whole, or skipped (with the error saying why). */
  onFileDone?: (path: string, outcome: FileOutcome) => void;
}

/** What became of one input file. */
export type FileOutcome = { read: true } | { read: false; error: IngestError };

/** A file skipped by a read with `skipUnreadable`, and why. */
export interface SkippedFile {
  file: string;
  error: IngestError;
}

export interface ReadResult {
  sessions: Session[];
  warnings: IngestWarning[];
  /** Warnings per code (exact, even when the list is capped). */
  warningCounts: Partial<Record<IngestWarning['code'], number>>;
  /** Files skipped as unreadable (only with `skipUnreadable`). */
  skipped: SkippedFile[];
}

const DEFAULT_WINDOW = 50_000;
/**
 * Streaming remembers which session each trace belongs to (late spans without a session key still find it) and
 * which sessions were emitted (to count re-emissions). Both are capped so memory stays flat on endless files; past
 * the cap the oldest entries are forgotten.
 */
const MAX_REMEMBERED = 1_000_000;

function remember<K, V>(m: Map<K, V>, k: K, v: V): void {
  m.set(k, v);
  if (m.size > MAX_REMEMBERED) m.delete(m.keys().next().value as K);
}

/** Detect the format of a file from its first bytes (and, for a single JSON document, its shape). */
export async function detectFormat(path: string): Promise<TraceFormat> {
  return (await detect(path)).format;
}

/** The format, and the parsed document when detection had to parse the whole file (so it is not parsed twice). */
async function detect(path: string): Promise<{ format: TraceFormat; doc?: unknown; encoding?: FileEncoding; streamRows?: boolean }> {
  const encoding = await fileEncoding(path);
  // Binary OTLP: a file with no byte order mark and no gzip header whose bytes are not UTF-8 text.
  if (!encoding.gzip && encoding.encoding === 'utf-8' && (await isProtoFile(path))) return { format: 'otlp-proto' };
  const text = await readHead(path, encoding);
  if (text.trim() === '') throw new IngestError('file is empty', path);
  // A list of ClickHouse rows is read row by row, never whole (json-array-stream.ts).
  if (text.trimStart().startsWith('[') && isClickHouseRow(await firstListItem(text))) return { format: 'clickhouse', encoding, streamRows: true };
  const first = text.trimStart().startsWith('{') ? await firstJsonLine(path, encoding) : undefined;
  // JSON Lines of OTLP requests, ClickHouse rows or sessions are streamed; objects of another tool one to a line are
  // values back to back, read whole.
  if (first?.more && isJsonLinesRecord(first.value)) return { format: 'otlp-jsonl', encoding };
  // A document written on one line was parsed just now: that line is the whole document.
  const doc = first && !first.more ? first.value : await parseWholeFile(path);
  const format = documentFormat(doc);
  if (format === undefined) throw await unknownFormat(doc, path);
  return { format, doc, encoding };
}

/** The first item of a list, when the head of the file holds all of it. */
async function firstListItem(head: string): Promise<unknown> {
  try {
    for await (const { value } of jsonListItems([head])) return value;
  } catch {
    // The head ends inside the first item (or the list is not valid JSON: the whole read says where).
  }
  return undefined;
}

const isJsonLinesRecord = (v: unknown): boolean => isOtlpRequest(v) || isClickHouseRow(v) || isSessionDocument(v) || spanFormatOf(v) === undefined;

/**
 * The first non-blank line when it is a complete JSON object, and whether another non-blank line follows (then the
 * file is JSON Lines); undefined for anything else (a pretty-printed document). Read as a stream, so a long first
 * line (a big export batch) is no problem, and a document written on one line needs no second read.
 */
async function firstJsonLine(path: string, encoding: FileEncoding): Promise<{ value: unknown; more: boolean } | undefined> {
  let first: { value: unknown } | undefined;
  for await (const raw of readLines(path, undefined, encoding)) {
    const line = raw.trim();
    if (line === '') continue;
    if (first) return { value: first.value, more: true };
    const text = line.replace(/^\uFEFF/, '');
    if (!text.startsWith('{')) return undefined;
    try {
      first = { value: JSON.parse(text) };
    } catch {
      return undefined;
    }
  }
  return first && { value: first.value, more: false };
}

/** The format of a whole document (values back to back: of their list), told by its shape; undefined for none. */
function documentFormat(parsed: unknown): TraceFormat | undefined {
  const doc = parsed instanceof ConcatenatedValues ? parsed.values : parsed;
  const known = ownFormat(doc);
  if (known !== undefined) return known;
  return spanFormatOf(doc)?.name;
}

/** OTLP requests, ClickHouse rows and session files (the formats of this project's own path). */
function ownFormat(doc: unknown): TraceFormat | undefined {
  if (isOtlpRequest(doc)) return 'otlp-json';
  if (Array.isArray(doc)) {
    const first = doc.find((x) => x !== null && typeof x === 'object');
    if (first === undefined && doc.length === 0) return 'clickhouse';
    if (isOtlpRequest(first)) return 'otlp-json';
    if (isClickHouseRow(first)) return 'clickhouse';
    if (isSessionDocument(first)) return 'session-json';
  } else if (isSessionDocument(doc)) {
    return 'session-json';
  } else if (doc !== null && typeof doc === 'object') {
    const values = Object.values(doc as Record<string, unknown>);
    if (values.length > 0 && values.every((v) => Array.isArray(v)) && values.some((v) => (v as unknown[]).some(isClickHouseRow))) return 'clickhouse';
  }
  return undefined;
}

/** The error for a document of no known format; a misspelt session's likely fields are named with their lines. */
async function unknownFormat(doc: unknown, path: string): Promise<IngestError> {
  const fields = misspeltSessionFields(doc);
  const positions = await locateIssues(fields, path);
  return new IngestError(`not a known trace format: ${lookedLike(doc)}${misspeltSessionHint(fields, positions)}; the formats read are ${KNOWN_FORMATS}`, path);
}

const KNOWN_FORMATS = [
  'OTLP/JSON with resourceSpans (also as Jaeger\'s and Tempo\'s query APIs answer it)',
  'OTLP JSON Lines',
  'ClickHouse otel_traces rows',
  'an mce session file',
  ...SPAN_FORMATS.map((f) => f.description),
].join(', ');

/** What a document of no known format looked like: its top-level keys (of its first item, for a list). */
function lookedLike(parsed: unknown): string {
  const many = parsed instanceof ConcatenatedValues;
  const doc = many ? parsed.values : parsed;
  const keys = (v: unknown) => {
    const names = Object.keys(v as object);
    const shown = names.slice(0, 12).map((k) => JSON.stringify(k.length > 40 ? `${k.slice(0, 40)}…` : k));
    return names.length === 0 ? 'no keys' : `keys ${shown.join(', ')}${names.length > 12 ? `, … (${names.length} in all)` : ''}`;
  };
  const what = (v: unknown): string =>
    v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? `an object with ${keys(v)}` : `a ${typeof v}`;
  if (!Array.isArray(doc)) return `the file holds ${what(doc)}`;
  const first = doc.find((x) => x !== null && typeof x === 'object');
  const intro = many ? `${doc.length} JSON values back to back` : `a list of ${doc.length}`;
  return first === undefined ? `the file holds ${intro}, none an object` : `the file holds ${intro}; the first object has ${Array.isArray(first) ? 'a list' : keys(first)}`;
}

/** Where the issues of a whole-document file are in its text (read again for it; not read for none with a place). */
async function locateIssues(issues: readonly DocumentIssue[], file: string): Promise<(JsonPosition | undefined)[]> {
  if (!issues.some((i) => i.place)) return [];
  const text = await documentText(file);
  return text === undefined ? [] : locateInJson(text, issues.map((i) => i.place));
}

/** The first decoded characters of a file (a chunk is enough to tell JSON Lines from one document). */
async function readHead(path: string, encoding: FileEncoding): Promise<string> {
  const chunks = textChunks(path, 1 << 16, encoding);
  try {
    const first = await chunks.next();
    return first.done ? '' : first.value;
  } catch (err) {
    if (err instanceof IngestError) throw err;
    throw new IngestError(`cannot read: ${errorMessage(err)}`, path, undefined, { cause: err });
  } finally {
    await chunks.return(undefined);
  }
}

/** The file's JSON: one value, or several back to back (a ConcatenatedValues); invalid JSON named at its line. */
async function parseWholeFile(path: string): Promise<unknown> {
  const text = await readText(path);
  try {
    return parseJsonText(text);
  } catch (err) {
    if (!(err instanceof JsonTextError)) throw err;
    const at = err.at;
    const message = `invalid JSON: ${err.reason}${positionText(at)}`;
    throw new IngestError(message, path, at?.line, { cause: err.cause, ...(at ? { column: at.column } : {}) });
  }
}

/** Spans of a parsed whole-file document (OTLP request, list of requests, ClickHouse rows). */
function* documentSpans(doc: unknown, format: TraceFormat, warnings: WarningSink, file: string, positions: PendingPositions | undefined): Generator<SpanRecord> {
  if (format === 'clickhouse') {
    yield* clickHouseSpans(doc, warnings, { file, positions });
    return;
  }
  if (!Array.isArray(doc)) {
    yield* otlpSpans(doc, warnings, { file, positions });
    return;
  }
  for (let i = 0; i < doc.length; i++) yield* otlpSpans(doc[i], warnings, { file, positions, path: [i] });
}

/** Read every session of one file or of several (any supported format). JSON Lines are streamed, then grouped at EOF. */
export async function readSessions(paths: string | readonly string[], options: IngestOptions & Pick<StreamOptions, 'skipUnreadable' | 'onFileDone'> = {}): Promise<ReadResult> {
  const stream = streamSessions(paths, { ...options, windowSpans: Number.POSITIVE_INFINITY });
  const sessions: Session[] = [];
  for await (const s of stream) sessions.push(s);
  return { sessions, warnings: stream.warnings.list, warningCounts: stream.warnings.counts, skipped: stream.skipped };
}

/**
 * Stream the sessions of one file or of several, read in order as one stream: the spans of a session split across
 * files (an exporter that rotates its file) are grouped together, so its calls keep their parents. JSON Lines are read
 * line by line; a session is emitted once none of its spans was seen for `windowSpans` spans, or after the last
 * file. Spans of an already emitted session that show up later are emitted again as a session with the same id (the
 * store merges them) and counted as a `session-reemitted` warning. Other formats are single JSON documents, read whole.
 */
export function streamSessions(
  paths: string | readonly string[],
  options: StreamOptions = {},
): AsyncIterable<Session> & { warnings: WarningSink; skipped: SkippedFile[] } {
  const warnings = new WarningSink();
  const skipped: SkippedFile[] = [];
  const files = typeof paths === 'string' ? [paths] : [...paths];
  return {
    warnings,
    skipped,
    [Symbol.asyncIterator]: () => sessionsOf(files, options, warnings, skipped)[Symbol.asyncIterator](),
  };
}

async function* sessionsOf(files: readonly string[], options: StreamOptions, warnings: WarningSink, skipped: SkippedFile[]): AsyncGenerator<Session> {
  // Warnings about places of the files that are one document, given their line and column once the read is over.
  const documents = new DocumentPositions();
  const grouper = new SpanGrouper(options, warnings, documents);
  try {
    try {
      for (const [index, path] of files.entries()) {
        options.onFile?.(path, index);
        const before = grouper.received;
        try {
          yield* fileSessions(path, options, grouper, warnings, documents);
        } catch (error) {
          // Nothing of a refused file goes on, whether the read goes on or ends here.
          grouper.withdraw(path);
          if (!(options.skipUnreadable && error instanceof IngestError)) throw error;
          // Nothing of a refused file goes on: its spans and sessions still held are dropped (JSON Lines streamed with
          // a finite window may have handed on sessions of it already: ingestion.md says so).
          grouper.withdraw(path);
          skipped.push({ file: path, error });
          options.onFileDone?.(path, { read: false, error });
          continue;
        }
        options.onFileDone?.(path, { read: true });
        // Not an error (an exporter's rotated file may be empty), but said: a wrong file given by mistake looks the same.
        if (grouper.received === before) warnings.add({ code: 'empty-file', message: `${path} holds no usable span or session`, file: path });
      }
    } catch (error) {
      // The files before the bad one are whole: their sessions are handed over before the error is.
      yield* grouper.rest();
      throw error;
    }
    yield* grouper.rest();
  } finally {
    await documents.resolve();
  }
}

async function* fileSessions(path: string, options: StreamOptions, grouper: SpanGrouper, warnings: WarningSink, documents: DocumentPositions): AsyncGenerator<Session> {
  const detected = options.format ? { format: options.format, doc: undefined, encoding: undefined } : await detect(path);
  if (detected.format === 'otlp-jsonl') {
    yield* jsonlSessions(path, grouper, warnings, detected.encoding);
    return;
  }
  if ('streamRows' in detected && detected.streamRows) {
    yield* streamedRowSessions(path, detected.encoding ?? (await fileEncoding(path)), grouper, warnings, documents);
    return;
  }
  const read = await readDocument(path, detected.format, detected.doc, options.format !== undefined, warnings, documents);
  if ('sessions' in read) {
    yield* grouper.addSessions(read.sessions, path);
    return;
  }
  for (const span of read.spans) grouper.add(span, read.where);
  yield* grouper.due();
}

/**
 * A list of ClickHouse rows read row by row: only one row's text at a time, each row parsed on its own. Its warnings
 * wait for their places as a document's do (the list is the document's root).
 */
async function* streamedRowSessions(path: string, encoding: FileEncoding, grouper: SpanGrouper, warnings: WarningSink, documents: DocumentPositions): AsyncGenerator<Session> {
  const where: Where = { file: path, positions: documents.of(path) };
  try {
    for await (const { value, index } of jsonListItems(textChunks(path, ROW_CHUNK_BYTES, encoding))) {
      const span = clickHouseListRowSpan(value, index, warnings, where);
      if (span) grouper.add(span, where);
      yield* grouper.due();
    }
  } catch (err) {
    if (err instanceof IngestError) throw err;
    if (err instanceof JsonTextError) {
      const at = err.at;
      throw new IngestError(`invalid JSON: ${err.reason}${positionText(at)}`, path, at?.line, { cause: err.cause, ...(at ? { column: at.column } : {}) });
    }
    throw new IngestError(`cannot read: ${errorMessage(err)}`, path, undefined, { cause: err });
  }
}

/** Chunks of the streamed row lists: as JSON Lines (lines.ts: under V8's largest young object). */
const ROW_CHUNK_BYTES = 120 * 1024;

/** What a file that is one document holds: the sessions of a session file, else its spans (and where they are read). */
type DocumentContent = { sessions: Session[] } | { spans: Iterable<SpanRecord>; where: Where };

/**
 * The content of a whole-document file of `format` (`doc`: already parsed by detection; `forced`: the format was
 * given, so the content is checked against it).
 */
async function readDocument(path: string, format: TraceFormat, detectedDoc: unknown, forced: boolean, warnings: WarningSink, documents: DocumentPositions): Promise<DocumentContent> {
  if (format === 'otlp-proto') return { spans: await otlpProtoFileSpans(path, warnings), where: { file: path } };
  // any-agent's integer ids need the text parsed again, with them quoted (formats/any-agent.ts).
  const parsed = format === 'any-agent' ? await parseAnyAgentFile(path) : (detectedDoc ?? (await parseWholeFile(path)));
  // Values back to back are read as their list; their places in the text are not paths from one root, so they go
  // unnamed (their warnings name the file).
  const concatenated = parsed instanceof ConcatenatedValues;
  const doc = concatenated ? parsed.values : parsed;
  // Warnings about places of the document get their line and column once the read is over (its text read again only then).
  const positions = concatenated ? undefined : documents.of(path);
  if (format === 'session-json') {
    const read = parseSessionDocument(doc);
    if ('issues' in read) throw new IngestError(invalidSessionFile(read.issues, positions ? await locateIssues(read.issues, path) : []), path);
    for (const { warning, place } of unknownFieldWarnings(read.unknownFields, path)) {
      if (positions) positions.warn(warnings, warning, () => place);
      else warnings.add(warning);
    }
    return { sessions: read.sessions };
  }
  // A forced format must still fit the content.
  if (forced && !fitsFormat(parsed, format)) throw new IngestError(`content is not ${format} (${lookedLike(parsed)})`, path);
  const where: Where = positions ? { file: path, positions } : { file: path };
  const reader = spanFormat(format);
  const spans = reader ? reader.spans(doc, warnings, where, concatenated ? undefined : []) : documentSpans(doc, format, warnings, path, positions);
  return { spans: concatenated ? unplaced(spans) : spans, where };
}

/** Spans whose places are not paths in their text (values back to back): none is named. */
function* unplaced(spans: Iterable<SpanRecord>): Generator<SpanRecord> {
  for (const span of spans) {
    span.listPath = span.listIndex = undefined;
    yield span;
  }
}

/**
 * The spans of one file as its reader delivers them, before they are grouped into sessions (what a reader makes of
 * a format, seen on its own). Not for session files; JSON Lines are read whole.
 */
export async function readSpans(path: string, options: Pick<IngestOptions, 'format'> = {}): Promise<{ format: TraceFormat; spans: SpanRecord[]; warnings: IngestWarning[] }> {
  const detected = options.format ? { format: options.format, doc: undefined } : await detect(path);
  const warnings = new WarningSink();
  const documents = new DocumentPositions();
  let spans: SpanRecord[] = [];
  if (detected.format === 'otlp-jsonl') {
    for await (const line of readLines(path)) if (line.trim() !== '') spans.push(...otlpSpans(JSON.parse(line), warnings, { file: path }));
  } else {
    const read = await readDocument(path, detected.format, detected.doc, options.format !== undefined, warnings, documents);
    if ('sessions' in read) throw new IngestError('a session file holds sessions, not spans', path);
    spans = [...read.spans];
  }
  await documents.resolve();
  return { format: detected.format, spans, warnings: warnings.list };
}

/** Whether a document is of `format` (the first format detection tries need not be the only one it fits). */
function fitsFormat(parsed: unknown, format: TraceFormat): boolean {
  const reader = spanFormat(format);
  if (!reader) return documentFormat(parsed) === format;
  return reader.matches(parsed instanceof ConcatenatedValues ? parsed.values : parsed);
}

/** An any-agent file parsed with its decimal ids kept whole. */
async function parseAnyAgentFile(path: string): Promise<unknown> {
  const doc = await parseWholeFile(path);
  return doc instanceof ConcatenatedValues ? doc : parseAnyAgentText(await readText(path));
}

interface Buffered {
  /** The session id it is emitted as (a trace's spans waiting for their session id: the trace id, until then). */
  id: string;
  spans: SpanRecord[];
  /** Value of the span counter when the last span of this group arrived. */
  last: number;
  /** The file of the group's first span (named by the normaliser's session-level warnings). */
  file: string;
  /** A session read whole (session JSON), held only to keep first-seen order when nothing is emitted early. */
  ready?: Session;
}

/**
 * Spans grouped by session as they arrive, from one file or several. A span without a session key waits under its
 * trace id until a span of its trace names the session (then joins it); a trace that never does is a session of its
 * own, named by the trace id (SPEC §1).
 */
class SpanGrouper {
  readonly #window: number;
  readonly #sessionKeys: readonly string[] | undefined;
  readonly #warnings: WarningSink;
  /** Where the normaliser's warnings about spans of whole documents wait for their places. */
  readonly #documents: DocumentPositions;
  readonly #buffers = new Map<string, Buffered>();
  /** Session id → the key its buffer keeps: a trace's waiting spans keep their place when their session id appears. */
  readonly #slots = new Map<string, string>();
  readonly #traceSession = new Map<string, string>();
  readonly #emitted = new Map<string, true>();
  #seen = 0;
  #sessionsSeen = 0;
  #readyCount = 0;
  #nextSweep: number;
  #checkedId: string | undefined;

  constructor(options: StreamOptions, warnings: WarningSink, documents: DocumentPositions) {
    this.#window = options.windowSpans ?? DEFAULT_WINDOW;
    this.#sessionKeys = options.sessionKeys;
    this.#warnings = warnings;
    this.#documents = documents;
    this.#nextSweep = Math.min(this.#window, 4096);
  }

  /** A span read at `where` (its file; its line in JSON Lines). */
  add(span: SpanRecord, where: Where): void {
    const { file, line } = where;
    const explicit = explicitSessionId(span, this.#sessionKeys);
    // A session id is a key of the stores, as in the session format: one with a control character (a newline breaks
    // every line, table and URL it is printed in) is refused, and its span skipped. The spans of a session share their
    // id: the last one checked is not checked again.
    if (explicit !== undefined && explicit !== this.#checkedId) {
      if (hasControlCharacter(explicit)) {
        const source = sessionIdSource(span, this.#sessionKeys);
        const warning = {
          code: 'malformed-span' as const,
          message: `skipped span ${span.spanId}: session id ${quoteControlCharacters(explicit)}${source ? ` (${source})` : ''} ${NO_CONTROL_CHARACTER}`,
          span: span.spanId,
          file,
          ...(line !== undefined ? { line } : {}),
        };
        warnAt(this.#warnings, where, warning, () => spanPath(span));
        return;
      }
      this.#checkedId = explicit;
    }
    this.#seen++;
    span.file = file;
    span.line = line;
    let key: string;
    if (explicit) {
      key = explicit;
      if (!this.#traceSession.has(span.traceId)) {
        remember(this.#traceSession, span.traceId, explicit);
        const waiting = pendingKey(span.traceId);
        const pending = this.#buffers.get(waiting);
        if (pending) {
          const target = this.#buffers.get(this.#slotOf(key));
          if (target) {
            this.#buffers.delete(waiting);
            for (const p of pending.spans) target.spans.push(p);
          } else {
            // The waiting spans came first: the session keeps their place in the read's order.
            pending.id = explicit;
            this.#slots.set(explicit, waiting);
          }
        }
      }
    } else {
      key = this.#traceSession.get(span.traceId) ?? pendingKey(span.traceId);
    }
    const slot = this.#slotOf(key);
    let buf = this.#buffers.get(slot);
    if (!buf) this.#buffers.set(slot, (buf = { id: explicit ?? this.#traceSession.get(span.traceId) ?? span.traceId, spans: [], last: this.#seen, file }));
    buf.spans.push(span);
    buf.last = this.#seen;
  }

  /** Drops every span and session of `file` still held (the file was refused after some of it was read). */
  withdraw(file: string): void {
    for (const [key, buf] of [...this.#buffers]) {
      if (buf.ready) {
        if (buf.file === file) this.#buffers.delete(key);
        continue;
      }
      const kept = buf.spans.filter((s) => s.file !== file);
      if (kept.length === buf.spans.length) continue;
      if (kept.length > 0) {
        buf.spans = kept;
        continue;
      }
      this.#buffers.delete(key);
      if (this.#slots.get(buf.id) === key) this.#slots.delete(buf.id);
    }
  }

  /** Spans and whole sessions received so far (a file that adds none held nothing usable). */
  get received(): number {
    return this.#seen + this.#sessionsSeen;
  }

  #slotOf(key: string): string {
    return this.#slots.get(key) ?? key;
  }

  /**
   * Sessions read whole: handed on at once when sessions are emitted as they go, else held in their place so that
   * the read's sessions come out in the order they were first seen (the first part of a session then stays first).
   */
  *addSessions(sessions: readonly Session[], file: string): Generator<Session> {
    this.#sessionsSeen += sessions.length;
    if (Number.isFinite(this.#window)) {
      yield* sessions;
      return;
    }
    for (const ready of sessions) this.#buffers.set(`\u0001${this.#readyCount++}`, { id: ready.id, spans: [], last: this.#seen, file, ready });
  }

  /** The sessions none of whose spans was seen for the window (checked every few thousand spans). */
  *due(): Generator<Session> {
    if (this.#seen < this.#nextSweep || !Number.isFinite(this.#window)) return;
    this.#nextSweep = this.#seen + Math.min(this.#window, 4096);
    for (const [key, buf] of this.#buffers) {
      if (this.#seen - buf.last < this.#window) continue;
      const session = this.#emit(key, buf);
      if (session) yield session;
    }
  }

  /** Every session still held (the input has ended). */
  *rest(): Generator<Session> {
    for (const [key, buf] of [...this.#buffers]) {
      const session = this.#emit(key, buf);
      if (session) yield session;
    }
  }

  /** The group as a session; undefined (with a warning) when its spans hold no call and no MCP server. */
  #emit(key: string, buf: Buffered): Session | undefined {
    this.#buffers.delete(key);
    if (this.#slots.get(buf.id) === key) this.#slots.delete(buf.id);
    if (buf.ready) return buf.ready;
    const id = buf.id;
    // Named where the group's first span was read (JSON Lines: its line; a span of a document has none here).
    const line = buf.spans[0]?.line;
    const at = line === undefined ? {} : { line };
    if (this.#emitted.has(id)) {
      this.#warnings.add({ code: 'session-reemitted', message: `spans of session ${id} arrived after it was emitted; emitted again (merge by id)`, sessionId: id, file: buf.file, ...at });
    }
    remember(this.#emitted, id, true);
    const session = normaliseSession(id, buf.spans, { warnings: this.#warnings, file: buf.file, positions: this.#documents });
    if (elementCount(session) > 0 || session.mcpServers.length > 0) return session;
    // Spans of no known call kind only (HTTP, an evaluation's score span, an unrecognised instrumentation): a session
    // with nothing to measure but its own length would only be noise in the store.
    this.#warnings.add({
      code: 'no-calls',
      message: `session ${id}: its ${buf.spans.length} span(s) hold no workflow, agent, task, LLM or tool call; not emitted`,
      sessionId: id,
      file: buf.file,
      ...at,
    });
    return undefined;
  }
}

const pendingKey = (traceId: string) => `\u0000${traceId}`;

/** The spans of a JSON Lines file into `grouper` (sessions written whole on a line are yielded as they come). */
async function* jsonlSessions(path: string, grouper: SpanGrouper, warnings: WarningSink, encoding?: FileEncoding): AsyncGenerator<Session> {
  let recognised = 0;
  let lineNo = 0;
  // Unknown fields of the file's session lines, grouped by place over all its lines: one warning per place, named at
  // the column of the first one, found while its line is at hand.
  const unknownFields = new UnknownFields();
  const unknownFieldColumns = new Map<string, number>();
  // Warnings about places inside the current line's record, given their column once the record is read.
  const linePositions = new PendingPositions();
  try {
    for await (const raw of readLines(path, undefined, encoding)) {
      lineNo++;
      const line = lineNo === 1 ? raw.replace(/^\uFEFF/, '') : raw;
      if (line.trim() === '') continue;
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch (err) {
        // One bad line (a collector cut off mid-write, a corrupted record) costs that line, not the file: the lines
        // before it may already be stored, and the ones after it are as good as they were.
        const at = syntaxErrorPosition(line, err);
        warnings.add({
          code: 'malformed-line',
          message: `skipped line: invalid JSON: ${errorMessage(err)}`,
          file: path,
          line: lineNo,
          ...(at?.line === 1 ? { column: at.column } : {}),
        });
        continue;
      }
      if (isOtlpRequest(record)) {
        recognised++;
        const where: Where = { file: path, line: lineNo, positions: linePositions };
        for (const s of otlpSpans(record, warnings, where)) grouper.add(s, where);
      } else if (isClickHouseRow(record)) {
        recognised++;
        // The row is the line's whole document: there is no place inside it to name.
        const where: Where = { file: path, line: lineNo };
        const span = clickHouseRowSpan(record, warnings, where);
        if (span) grouper.add(span, where);
      } else if (isSessionDocument(record)) {
        recognised++;
        const parsed = parseSessionDocument(record, lineNo);
        if ('issues' in parsed) {
          const found = locateOnLine(line, lineNo, parsed.issues.map((i) => i.place));
          warnings.add({ code: 'malformed-line', message: `skipped line: ${invalidSessionFile(parsed.issues, found)}`, file: path, line: lineNo, ...firstColumn(found) });
        } else {
          addUnknownFields(unknownFields, parsed.unknownFields, line, lineNo, unknownFieldColumns);
          yield* grouper.addSessions(parsed.sessions, path);
        }
      } else {
        const fields = misspeltSessionFields(record);
        const found = locateOnLine(line, lineNo, fields.map((f) => f.place));
        const hint = misspeltSessionHint(fields, found);
        if (recognised === 0 && lineNo <= 1) {
          throw new IngestError(`not a known trace format: ${lookedLike(record).replace('the file holds', 'the line holds')}${hint}; the formats read are ${KNOWN_FORMATS}`, path, lineNo);
        }
        warnings.add({ code: 'malformed-line', message: `skipped line: not an OTLP request, ClickHouse row or session${hint}`, file: path, line: lineNo, ...firstColumn(found) });
        continue;
      }
      if (linePositions.waiting) linePositions.resolveIn(line, lineNo);
      yield* grouper.due();
    }
  } catch (err) {
    if (err instanceof IngestError) throw err;
    throw new IngestError(`cannot read: ${errorMessage(err)}`, path, lineNo, { cause: err });
  }
  if (recognised === 0) throw new IngestError('not a known trace format (no OTLP request, ClickHouse row or session found)', path);
  for (const { warning } of unknownFieldWarnings(unknownFields, path)) {
    const column = warning.path === undefined ? undefined : unknownFieldColumns.get(warning.path);
    warnings.add(column === undefined ? warning : { ...warning, column });
  }
}

/** `{ column }` of the first place found on a line, for a warning that names several places in its message. */
const firstColumn = (found: readonly (JsonPosition | undefined)[]): { column?: number } => {
  const at = found.find((f) => f !== undefined);
  return at ? { column: at.column } : {};
};

/**
 * One line's unknown fields added to the file's tally; a place first seen on this line has the column of its field's
 * name noted (by the path its warning will name), while the line's text is at hand.
 */
function addUnknownFields(tally: UnknownFields, line: UnknownFields, text: string, lineNo: number, columns: Map<string, number>): void {
  if (line.total === 0) return;
  const before = tally.list.length;
  tally.add(line);
  const added = tally.list.slice(before);
  if (added.length === 0) return;
  const found = locateOnLine(text, lineNo, added.map((f): JsonPlace => ({ path: f.keys, key: true })));
  for (const [i, f] of added.entries()) {
    const at = found[i];
    if (at) columns.set(f.path, at.column);
  }
}

/** `not a valid session file (path: message; …)`, each path with its line and column when they are known. */
const invalidSessionFile = (issues: readonly DocumentIssue[], positions: readonly (JsonPosition | undefined)[] = []) =>
  `not a valid session file (${issues.map((issue, i) => issueText(issue, positions[i])).join('; ')})`;

/**
 * Write sessions as the project's session JSON (`{ "sessions": [...] }`), streamed one session per line so
 * big exports never sit in memory as one string. Returns the number of sessions written. The file appears whole or
 * not at all (written beside it, then renamed); one that cannot be written (no such folder, a folder, no permission)
 * is an IngestError naming it.
 */
export async function writeSessionsFile(path: string, sessions: Iterable<Session> | AsyncIterable<Session>): Promise<number> {
  let n = 0;
  let inputError: { error: unknown } | undefined;
  async function* text(): AsyncGenerator<string> {
    yield '{"sessions":[';
    try {
      for await (const s of sessions) {
        yield `${n === 0 ? '\n' : ',\n'}${JSON.stringify(s)}`;
        n++;
      }
    } catch (error) {
      inputError = { error }; // the sessions' own failure, not the file's: rethrown as it is
      throw error;
    }
    yield '\n]}\n';
  }
  // The real file behind a link is the one replaced. A path that exists and is not a regular file (a FIFO,
  // /dev/stdout) is written in place: there is nothing to rename over.
  const target = await realpath(path).catch(() => path);
  const existing = await stat(target).catch(() => undefined);
  if (existing?.isDirectory()) throw new IngestError('cannot write: it is a folder', path);
  const inPlace = existing !== undefined && !existing.isFile();
  // A name nobody can guess, created exclusively ('wx' does not follow a link planted at that name): in a folder others
  // can write to, a predictable name would let them point it at another of the user's files.
  const partial = inPlace ? target : `${target}.${randomBytes(8).toString('hex')}.partial`;
  try {
    // flush: on disk before the rename, so that a power loss cannot leave a renamed but truncated file.
    const options = inPlace ? { encoding: 'utf8' as const } : { encoding: 'utf8' as const, flags: 'wx', mode: existing ? existing.mode & 0o777 : 0o666, flush: true };
    await pipeline(Readable.from(text()), createWriteStream(partial, options));
    if (!inPlace) await rename(partial, target);
  } catch (err) {
    if (!inPlace) await rm(partial, { force: true }).catch(() => undefined);
    if (inputError) throw inputError.error;
    if (err instanceof IngestError) throw err;
    const reason = errorMessage(err).replaceAll(partial, path);
    throw new IngestError(`cannot write: ${reason}`, path, undefined, { cause: err });
  }
  return n;
}
