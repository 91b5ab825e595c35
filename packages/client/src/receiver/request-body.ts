/**
 * An OTLP/HTTP request body → the OTLP/JSON-shaped request: `application/x-protobuf` or `application/json`, gzip or
 * not (OTLP specification, "OTLP/HTTP"). Each refusal is an OtlpHttpError with the status the specification gives it.
 */
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { decodeTraceRequest, OtlpDecodeError } from '@mce/ingest';

const gunzipAsync = promisify(gunzip);

export type OtlpEncoding = 'protobuf' | 'json';

export class OtlpHttpError extends Error {
  override readonly name = 'OtlpHttpError';
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
  ) {
    super(message);
  }
}

/** The encoding a Content-Type names; OtlpHttpError 415 for any other. */
export function encodingOf(contentType: string | undefined): OtlpEncoding {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  throw new OtlpHttpError(415, `Content-Type must be application/x-protobuf or application/json (got ${type || 'none'})`);
}

/** The body without its Content-Encoding (gzip, or none), at most `maxBytes` once inflated. */
async function inflated(body: Uint8Array, contentEncoding: string | undefined, maxBytes: number): Promise<Uint8Array> {
  const encoding = contentEncoding?.trim().toLowerCase();
  if (!encoding || encoding === 'identity') return body;
  if (encoding !== 'gzip') throw new OtlpHttpError(415, `Content-Encoding must be gzip or none (got ${encoding})`);
  try {
    return await gunzipAsync(body, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new OtlpHttpError(413, `request body larger than ${maxBytes} bytes once gunzipped`);
    throw new OtlpHttpError(400, `body is not valid gzip: ${(error as Error).message}`);
  }
}

/** The decoded request; OtlpHttpError 400 for a body that does not decode, 413 for one too large once gunzipped. */
export async function decodeOtlpBody(body: Uint8Array, encoding: OtlpEncoding, contentEncoding: string | undefined, maxBytes: number): Promise<unknown> {
  const bytes = await inflated(body, contentEncoding, maxBytes);
  if (encoding === 'protobuf') {
    try {
      return decodeTraceRequest(bytes);
    } catch (error) {
      if (error instanceof OtlpDecodeError) throw new OtlpHttpError(400, error.message);
      throw error;
    }
  }
  let request: unknown;
  try {
    request = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (error) {
    throw new OtlpHttpError(400, `body is not valid JSON: ${(error as Error).message}`);
  }
  if (request === null || typeof request !== 'object' || Array.isArray(request)) throw new OtlpHttpError(400, 'body is not an ExportTraceServiceRequest object');
  return request;
}
