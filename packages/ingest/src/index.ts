export { readSessions, readSpans, streamSessions, detectFormat, writeSessionsFile, TRACE_FORMATS } from './read.js';
export type { TraceFormat, IngestOptions, StreamOptions, ReadResult, FileOutcome, SkippedFile } from './read.js';
export { IngestError, WarningSink } from './errors.js';
export type { IngestWarning, IngestWarningCode } from './errors.js';
export { normaliseSession } from './normalise.js';
export { MISSING_PARENT_KEY } from './links.js';
export { explicitSessionId, DEFAULT_VENDOR_SESSION_KEYS, STANDARD_SESSION_KEYS } from './session-id.js';
export type { SpanRecord, SpanEvent } from './span.js';
export { listInputFiles } from './inputs.js';
export { mergeSessions, mergeSessionHeader, coalesceSessions, sessionHeader, planSessionWrite, type SessionHeader, type SessionWrite } from './merge.js';
export { reconcilePart, type ReconciledPart, type HeaderOverrides } from './parts.js';
export { otlpSpans } from './formats/otlp.js';
export { issuesInText, schemaIssues, notePlace, parseSessionDocument, type DocumentIssue } from './formats/session-json.js';
export { locateInJson, positionText, syntaxErrorPosition, type JsonPosition, type JsonPlace, type JsonPath } from './json-position.js';
export { excessDepthAt, MAX_JSON_DEPTH } from './json-depth.js';
export {
  decodeTraceRequest,
  decodeTraceResponse,
  decodeLogsRequest,
  encodeTraceRequest,
  encodeTraceResponse,
  encodeRpcStatus,
  OtlpDecodeError,
  type PartialSuccess,
} from './otlp-protobuf.js';
