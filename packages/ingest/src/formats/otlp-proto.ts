/**
 * OTLP protobuf files → common spans. A file holds one `TracesData` / `ExportTraceServiceRequest` (`.pb`, `.binpb`), or
 * a stream of them each preceded by its length: 4 bytes big-endian (the Collector's file exporter, `format: proto`)
 * or a varint (protobuf's delimited streams, as the OTLP file-exporter specification has it). Told from JSON by its
 * bytes: protobuf is binary, JSON never is.
 */
import { open, readFile } from 'node:fs/promises';
import { errorMessage, IngestError, type WarningSink } from '../errors.js';
import { decodeTraceRequest } from '../otlp-protobuf.js';
import type { SpanRecord } from '../span.js';
import { otlpSpans, type Where } from './otlp.js';

/** A field-1 length-delimited tag: how every non-empty TracesData begins (its `resource_spans`). */
const RESOURCE_SPANS_TAG = 0x0a;

/**
 * True when the first bytes of the file are binary, so the file is taken for protobuf: a C0 control byte JSON text
 * cannot hold (a length prefix, a small field length, an id's bytes), or no valid UTF-8.
 */
export async function isProtoFile(path: string): Promise<boolean> {
  const head = await readHeadBytes(path, 4096);
  for (const b of head) if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return true;
  return !isUtf8Prefix(head);
}

/** Valid UTF-8 but for a character the 4,096 bytes cut in two at the end. */
function isUtf8Prefix(bytes: Uint8Array): boolean {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    decoder.decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
}

async function readHeadBytes(path: string, size: number): Promise<Uint8Array> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (err) {
    throw new IngestError(`cannot open: ${errorMessage(err)}`, path, undefined, { cause: err });
  }
  try {
    const buf = Buffer.alloc(size);
    const { bytesRead } = await fh.read(buf, 0, size, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

export type ProtoFraming = 'single' | 'uint32-prefixed' | 'varint-delimited';

export interface ProtoMessage {
  bytes: Uint8Array;
  /** Its byte offset in the file (after its length prefix). */
  offset: number;
}

/** Messages framed by a length before each (`lengthAt` reads one: its value and size), or undefined when they do not tile the file. */
function framed(buf: Uint8Array, lengthAt: (at: number) => { length: number; size: number } | undefined): ProtoMessage[] | undefined {
  const out: ProtoMessage[] = [];
  let at = 0;
  while (at < buf.length) {
    const prefix = lengthAt(at);
    if (!prefix) return undefined;
    const start = at + prefix.size;
    const end = start + prefix.length;
    if (end > buf.length) return undefined;
    out.push({ bytes: buf.subarray(start, end), offset: start });
    at = end;
  }
  return out.length > 0 ? out : undefined;
}

const uint32At = (buf: Uint8Array) => (at: number) =>
  at + 4 <= buf.length ? { length: (((buf[at]! << 24) >>> 0) + (buf[at + 1]! << 16) + (buf[at + 2]! << 8) + buf[at + 3]!), size: 4 } : undefined;

const varintAt = (buf: Uint8Array) => (at: number) => {
  let length = 0;
  for (let i = 0; i < 5 && at + i < buf.length; i++) {
    const b = buf[at + i]!;
    length += (b & 0x7f) * 2 ** (7 * i);
    if (b < 0x80) return { length, size: i + 1 };
  }
  return undefined;
};

/**
 * The messages of a protobuf trace file and how they are framed. A file starting with the `resource_spans` tag is one
 * message; else the first length prefix that tiles the whole file with messages that each begin with that tag.
 */
export function splitProtoFile(buf: Uint8Array): { framing: ProtoFraming; messages: ProtoMessage[] } | undefined {
  if (buf.length === 0) return undefined;
  if (buf[0] === RESOURCE_SPANS_TAG) return { framing: 'single', messages: [{ bytes: buf, offset: 0 }] };
  const startsRight = (ms: ProtoMessage[] | undefined) => ms !== undefined && ms.every((m) => m.bytes.length === 0 || m.bytes[0] === RESOURCE_SPANS_TAG);
  const byUint32 = framed(buf, uint32At(buf));
  if (startsRight(byUint32)) return { framing: 'uint32-prefixed', messages: byUint32! };
  const byVarint = framed(buf, varintAt(buf));
  if (startsRight(byVarint)) return { framing: 'varint-delimited', messages: byVarint! };
  return undefined;
}

/**
 * Every span of an OTLP protobuf file. A file that is no such protobuf is an IngestError; one message of a stream
 * that does not decode is one too, naming its byte offset (a cut-off stream is refused whole: nothing half-read).
 */
export async function otlpProtoFileSpans(path: string, warnings: WarningSink): Promise<SpanRecord[]> {
  let buf: Buffer;
  try {
    buf = await readFile(path);
  } catch (err) {
    throw new IngestError(`cannot read: ${errorMessage(err)}`, path, undefined, { cause: err });
  }
  const split = splitProtoFile(buf);
  if (!split) throw new IngestError('not OTLP protobuf (neither one TracesData message nor length-prefixed ones)', path);
  const requests = split.messages.map((m, i) => {
    try {
      return decodeTraceRequest(m.bytes);
    } catch (err) {
      const which = split.framing === 'single' ? '' : ` message ${i + 1} (at byte ${m.offset})`;
      throw new IngestError(`invalid OTLP protobuf${which}: ${errorMessage(err)}`, path, undefined, { cause: err });
    }
  });
  const where: Where = { file: path };
  const spans: SpanRecord[] = [];
  for (const request of requests) {
    for (const span of otlpSpans(request, warnings, where)) {
      // No JSON path: a place in binary cannot be shown as a line and column.
      span.listPath = undefined;
      span.listIndex = undefined;
      spans.push(span);
    }
  }
  return spans;
}
