export { readSessions, readSpans, streamSessions, detectFormat, writeSessionsFile, TRACE_FORMATS } from './read.js';
export type { TraceFormat, IngestOptions, StreamOptions, ReadResult, FileOutcome, SkippedFile } from './read.js';
export { IngestError, WarningSink } from './errors.js';
export type { IngestWarning, IngestWarningCode } from './errors.js';
export { normaliseSession } from './normalise.js';
export { MISSING_PARENT_KEY } from './links.js';
export { explicitSessionId, DEFAULT_VENDOR_SESSION_KEYS, STANDARD_SESSION_KEYS } from './session-id.js';
export type { SpanRecord, SpanEvent } from './span.js';
export { listInputFiles } from './inputs.js';
