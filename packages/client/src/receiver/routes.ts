/**
 * `POST /v1/traces` (OTLP/HTTP): 200 with an ExportTraceServiceResponse (its `partialSuccess` naming the spans
 * rejected), 400 for a body that does not decode, 413 above the size limit, 415 for another content type, 429 / 503
 * with Retry-After under back-pressure. Answers in the request's encoding; errors carry a google.rpc.Status.
 */
import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { encodeRpcStatus, encodeTraceResponse, type PartialSuccess } from '@mce/ingest';
import { BodyTooLargeError, streamedBodyLimit } from '../api/body-limit.js';
import { serve } from '../api/routes/serve.js';
import { ReceiverBusyError, type OtlpReceiver } from './receiver.js';
import { decodeOtlpBody, encodingOf, OtlpHttpError, type OtlpEncoding } from './request-body.js';

/** gRPC codes of the statuses (google.rpc.Code): INVALID_ARGUMENT, RESOURCE_EXHAUSTED, UNAVAILABLE. */
const RPC_CODE: Record<number, number> = { 400: 3, 413: 3, 415: 3, 429: 8, 503: 14 };

function answer(c: Context, encoding: OtlpEncoding, status: number, protobufBody: Uint8Array, jsonBody: unknown): Response {
  if (encoding === 'protobuf') return c.body(protobufBody as Uint8Array<ArrayBuffer>, status as 200, { 'Content-Type': 'application/x-protobuf' });
  return c.json(jsonBody, status as 200);
}

function failure(c: Context, encoding: OtlpEncoding, status: number, message: string): Response {
  const code = RPC_CODE[status] ?? 13;
  return answer(c, encoding, status, encodeRpcStatus(code, message), { code, message });
}

const binary = { type: 'string', format: 'binary' } as const;
const rpcStatus = (description: string) => ({ description: `${description} (a google.rpc.Status)` });

/** The route's definition; its body is decoded by the handler (protobuf or JSON, maybe gzipped), not by a schema. */
export const otlpTracesRoute = (limit: MiddlewareHandler) =>
  createRoute({
    method: 'post',
    path: '/v1/traces',
    operationId: 'otlpTraces',
    summary: 'OTLP/HTTP trace export: spans stored as sessions, each evaluated once complete (docs/receiver.md)',
    middleware: [limit] as const,
    request: {
      body: {
        required: true,
        content: {
          'application/x-protobuf': { schema: { ...binary, description: 'an ExportTraceServiceRequest' } },
          'application/json': { schema: { type: 'object', description: 'an ExportTraceServiceRequest in the protobuf JSON mapping' } },
        },
      },
    },
    responses: {
      200: {
        description: 'an ExportTraceServiceResponse, in the request encoding; partialSuccess names the spans rejected',
        content: { 'application/x-protobuf': { schema: binary }, 'application/json': { schema: { type: 'object' } } },
      },
      400: rpcStatus('a body that does not decode'),
      413: rpcStatus('a body larger than receiver.max_body_mb, sent or gunzipped'),
      415: rpcStatus('another content type or encoding'),
      429: rpcStatus('the buffer is full: retry after Retry-After'),
      503: rpcStatus('the store is failing, or the receiver stopping: retry after Retry-After'),
    },
  });

/** The route, on its own app (mounted by `mce serve` and `mce receive`). */
export function otlpTracesApp(receiver: OtlpReceiver, maxBodyBytes: number): OpenAPIHono {
  const app = new OpenAPIHono();
  serve(
    app,
    otlpTracesRoute(streamedBodyLimit(maxBodyBytes, (c, message) => failure(c, encodingFor(c), 413, message))),
    async (c) => {
      let encoding: OtlpEncoding = encodingFor(c);
      let release: (() => void) | undefined;
      try {
        encoding = encodingOf(c.req.header('content-type'));
        release = receiver.admit(); // before reading the body: a busy receiver spends nothing on it
        const request = await decodeOtlpBody(new Uint8Array(await c.req.arrayBuffer()), encoding, c.req.header('content-encoding'), maxBodyBytes);
        const outcome = await receiver.accept(request);
        const partial: PartialSuccess | undefined = outcome.rejected > 0 ? { rejectedSpans: outcome.rejected, errorMessage: outcome.message } : undefined;
        return answer(c, encoding, 200, encodeTraceResponse(partial), partial ? { partialSuccess: partial } : {});
      } catch (error) {
        if (error instanceof ReceiverBusyError) {
          c.header('Retry-After', String(error.retryAfterSeconds));
          return failure(c, encoding, error.status, error.message);
        }
        if (error instanceof OtlpHttpError) return failure(c, encoding, error.status, error.message);
        if (error instanceof BodyTooLargeError) return failure(c, encoding, 413, error.message);
        throw error;
      } finally {
        release?.();
      }
    },
  );
  return app;
}

/** The encoding to answer in before the Content-Type is checked: JSON unless it says protobuf. */
const encodingFor = (c: Context): OtlpEncoding => (/protobuf/i.test(c.req.header('content-type') ?? '') ? 'protobuf' : 'json');
