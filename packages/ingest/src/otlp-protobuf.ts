/**
 * OTLP protobuf ↔ the OTLP/JSON-shaped objects the OTLP reader (formats/otlp.ts) takes, with the OTLP messages of
 * proto/otlp/ (the protocol's packages and field numbers; loaded once by protobufjs). Used by the protobuf file reader and the receiver's `POST /v1/traces`, so a
 * span decodes the same whichever way it came.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type protobuf from 'protobufjs';

// Loaded at the first message, not with the package: most commands read no protobuf (bench/startup).
const require = createRequire(import.meta.url);

/** The schema folder: `proto/otlp/` of this package, the same distance from src/ and dist/. */
const PROTO_ROOT = fileURLToPath(new URL('../proto/otlp/', import.meta.url));
const TRACE_SERVICE = 'trace_service.proto';
const LOGS_SERVICE = 'logs_service.proto';

interface OtlpTypes {
  traceRequest: protobuf.Type;
  traceResponse: protobuf.Type;
  logsRequest: protobuf.Type;
}

let types: OtlpTypes | undefined;

function otlpTypes(): OtlpTypes {
  if (types) return types;
  const { Root } = require('protobufjs') as typeof protobuf;
  const root = new Root();
  // The schema's imports name files of its own folder.
  root.resolvePath = (_origin, target) => PROTO_ROOT + target.replace(/^.*\//, '');
  root.loadSync([TRACE_SERVICE, LOGS_SERVICE], { keepCase: false });
  types = {
    traceRequest: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest'),
    traceResponse: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse'),
    logsRequest: root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest'),
  };
  return types;
}

/** Bytes that are no OTLP protobuf message of the type expected (the wire format broken or cut off). */
export class OtlpDecodeError extends Error {
  override readonly name = 'OtlpDecodeError';
}

/**
 * The protobuf JSON mapping (camelCase fields, int64 as decimal strings, bytes as base64, enums as numbers, unset
 * fields left out); trace requests then get their ids in hex, as OTLP/JSON writes them.
 */
const JSON_SHAPE: protobuf.IConversionOptions = { longs: String, enums: Number, bytes: String, defaults: false, arrays: false };

function decodeAs(type: protobuf.Type, bytes: Uint8Array): Record<string, unknown> {
  let message: protobuf.Message;
  try {
    message = type.decode(bytes);
  } catch (err) {
    throw new OtlpDecodeError(`not an OTLP protobuf ${type.name}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return type.toObject(message, JSON_SHAPE);
}

const ID_KEYS = ['traceId', 'spanId', 'parentSpanId'] as const;
const items = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? (v as Record<string, unknown>[]) : []);

/** Ids from base64 to hex in place, as OTLP/JSON writes them: a span named in a warning reads as in its JSON twin. */
function hexIds(record: Record<string, unknown>): void {
  for (const key of ID_KEYS) {
    const id = record[key];
    if (typeof id === 'string') record[key] = Buffer.from(id, 'base64').toString('hex');
  }
}

/**
 * An `ExportTraceServiceRequest` (or `TracesData`: the same wire format) → `{ resourceSpans: [...] }` as OTLP/JSON has
 * it, ids in hex. Throws OtlpDecodeError for bytes that do not decode.
 */
export function decodeTraceRequest(bytes: Uint8Array): Record<string, unknown> {
  const request = decodeAs(otlpTypes().traceRequest, bytes);
  for (const rs of items(request.resourceSpans)) {
    for (const ss of items(rs.scopeSpans)) {
      for (const span of items(ss.spans)) {
        hexIds(span);
        for (const link of items(span.links)) hexIds(link);
      }
    }
  }
  return request;
}

/** An `ExportLogsServiceRequest` → `{ resourceLogs: [...] }` in the same JSON shape. */
export function decodeLogsRequest(bytes: Uint8Array): Record<string, unknown> {
  return decodeAs(otlpTypes().logsRequest, bytes);
}

export interface PartialSuccess {
  rejectedSpans: number;
  errorMessage: string;
}

/** An `ExportTraceServiceResponse` → `{ partialSuccess?: { rejectedSpans, errorMessage } }` (int64 as a decimal string). */
export function decodeTraceResponse(bytes: Uint8Array): Record<string, unknown> {
  return decodeAs(otlpTypes().traceResponse, bytes);
}

/** An `ExportTraceServiceResponse`, with `partialSuccess` when spans were rejected. */
export function encodeTraceResponse(partial?: PartialSuccess): Uint8Array {
  const { traceResponse } = otlpTypes();
  const body = partial ? { partialSuccess: { rejectedSpans: partial.rejectedSpans, errorMessage: partial.errorMessage } } : {};
  return traceResponse.encode(traceResponse.fromObject(body)).finish();
}

const ID_FIELDS = ['traceId', 'spanId', 'parentSpanId'] as const;

/** A span's hex ids as bytes (OTLP/JSON writes ids in hex, where the protobuf JSON mapping would read base64). */
function withIdBytes(span: unknown): unknown {
  if (span === null || typeof span !== 'object') return span;
  const out: Record<string, unknown> = { ...(span as Record<string, unknown>) };
  for (const field of ID_FIELDS) {
    const id = out[field];
    if (typeof id === 'string' && /^[0-9a-f]*$/i.test(id) && id.length % 2 === 0) out[field] = Buffer.from(id, 'hex');
  }
  return out;
}

const mapList = (v: unknown, f: (x: Record<string, unknown>) => unknown): unknown => (Array.isArray(v) ? v.map((x) => f(x as Record<string, unknown>)) : v);

/**
 * An `ExportTraceServiceRequest` from its OTLP/JSON shape, ids in hex (the tests' and benchmark's way to build the
 * protobuf twin of a JSON request).
 */
export function encodeTraceRequest(request: Record<string, unknown>): Uint8Array {
  const { traceRequest } = otlpTypes();
  const bytesIds = {
    resourceSpans: mapList(request.resourceSpans, (rs) => ({
      ...rs,
      scopeSpans: mapList(rs.scopeSpans, (ss) => ({ ...ss, spans: mapList(ss.spans, withIdBytes) })),
    })),
  };
  return traceRequest.encode(traceRequest.fromObject(bytesIds)).finish();
}

/** `google.rpc.Status` (code, message): the body of an OTLP/HTTP error response. */
let statusType: protobuf.Type | undefined;

export function encodeRpcStatus(code: number, message: string): Uint8Array {
  const { Root, Type, Field } = require('protobufjs') as typeof protobuf;
  statusType ??= new Root().define('google.rpc').add(new Type('Status').add(new Field('code', 1, 'int32')).add(new Field('message', 2, 'string'))).lookupType('Status');
  return statusType.encode(statusType.fromObject({ code, message })).finish();
}
