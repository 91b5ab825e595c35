/**
 * The OTLP receiver end to end and per response case: the real OpenTelemetry JS SDK exporting the multi-agent session
 * over OTLP/HTTP protobuf, stored in a real SQLite store, evaluated, and its results arriving as
 * gen_ai.evaluation.result log records at a second local OTLP endpoint.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createApiApp } from '../../src/api/app.js';
import { defaultMceConfig } from '../../src/config/index.js';
import { decodeTraceRequest, decodeTraceResponse, encodeTraceRequest } from '../../../ingest/src/otlp-protobuf.js';
import { MCEClient } from '../../src/mce-client.js';
import { receiverPipeline, type ReceiverPipeline } from '../../src/receiver/pipeline.js';
import type { ReceiverLogger } from '../../src/receiver/receiver.js';
import { serveOtlp, type ReceiverServer } from '../../src/receiver/server.js';
import { DEFAULT_RECEIVER_SETTINGS, type ReceiverSettings } from '../../src/receiver/settings.js';
import { openStore } from '../../../store/src/index.js';
import { dataFile, fixture } from '../../../ingest/test/helpers.js';
import { SESSION_ID, TRACE_ID } from '../../../ingest/test/multi-agent-scenario.js';
import { emitScenario } from '../../../ingest/test/otel-sdk-scenario.js';
import { LogSink, waitFor } from './log-sink.js';
import { chunkedBody } from '../../../../test-support/chunked-body.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A logger that keeps what it is given (the receiver's errors are part of what is tested). */
class KeptLog implements ReceiverLogger {
  readonly lines: { level: string; msg: string | undefined }[] = [];
  info = (_: object, msg?: string) => void this.lines.push({ level: 'info', msg });
  warn = (_: object, msg?: string) => void this.lines.push({ level: 'warn', msg });
  error = (_: object, msg?: string) => void this.lines.push({ level: 'error', msg });
}

interface Rig {
  client: MCEClient;
  pipeline: ReceiverPipeline;
  log: KeptLog;
  file: string;
  server?: ReceiverServer;
  url?: string;
}

const rigs: Rig[] = [];
afterEach(async () => {
  for (const rig of rigs.splice(0)) {
    await rig.pipeline.close().catch(() => undefined);
    await rig.server?.close();
    await rig.client.close();
  }
});

async function rig(settings: Partial<ReceiverSettings> = {}, options: { listen?: boolean; busyTimeoutMs?: number } = {}): Promise<Rig> {
  const dir = mkdtempSync(join(tmpdir(), 'mce-receiver-'));
  dirs.push(dir);
  const file = join(dir, 'kg.db');
  const store = await openStore(`sqlite:${file}`);
  // The store's 10 s busy timeout cut short: a locked store fails at once, as a store that is down does.
  if (options.busyTimeoutMs !== undefined) (store as unknown as { db: Database.Database }).db.pragma(`busy_timeout = ${options.busyTimeoutMs}`);
  const client = await MCEClient.open({ config: defaultMceConfig(), store, cache: false });
  const log = new KeptLog();
  const pipeline = receiverPipeline(client, { settings: { ...DEFAULT_RECEIVER_SETTINGS, ...settings, exportOtlp: settings.exportOtlp ?? { enabled: false } }, env: {}, logger: log });
  const r: Rig = { client, pipeline, log, file };
  rigs.push(r);
  if (options.listen) {
    r.server = await serveOtlp(pipeline.app, { port: 0, host: '127.0.0.1' });
    r.url = `http://127.0.0.1:${r.server.port}/v1/traces`;
  }
  return r;
}

const RAW = JSON.parse(readFileSync(fixture('otlp-dialects/raw.json'), 'utf8')) as Record<string, unknown>;
/** The scenario's spans one per line, the root (with the session id) last, as an SDK's batches send them. */
const SCENARIO_LINES = readFileSync(dataFile('multi-agent/genai.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

const post = (r: Rig, body: Uint8Array | string, headers: Record<string, string>) =>
  r.pipeline.app.request('/v1/traces', { method: 'POST', body: body as unknown as ArrayBuffer, headers });
const PROTOBUF = { 'content-type': 'application/x-protobuf' };
const JSON_TYPE = { 'content-type': 'application/json' };

describe('OTLP/HTTP response cases', () => {
  it('protobuf: 200 with an empty ExportTraceServiceResponse; the spans are stored as a session', async () => {
    const r = await rig({ completeOnRoot: true });
    const res = await post(r, encodeTraceRequest(RAW), PROTOBUF);
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'application/x-protobuf']);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(new Uint8Array(0)); // no partial_success: nothing set
    await r.pipeline.receiver.settled();
    const session = await r.client.store.getSession('053074667b1113278073667614bb3e19'); // raw.json has no session key: its trace id
    expect(session?.llmCalls.map((c) => c.requestModel)).toEqual(['gpt-4o-mini']);
  });

  it('JSON: 200 with {}', async () => {
    const r = await rig();
    const res = await post(r, JSON.stringify(RAW), JSON_TYPE);
    expect([res.status, await res.json()]).toEqual([200, {}]);
  });

  it('gzip bodies are inflated', async () => {
    const r = await rig();
    const res = await post(r, gzipSync(encodeTraceRequest(RAW)), { ...PROTOBUF, 'content-encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect(r.pipeline.receiver.stats.acceptedSpans).toBe(1);
  });

  it('partial success: the malformed span is rejected, counted and named; the others are taken', async () => {
    const r = await rig();
    const spans = SCENARIO_LINES.slice(0, 3).map((l) => ((l.resourceSpans as { scopeSpans: { spans: Record<string, unknown>[] }[] }[])[0]!.scopeSpans[0]!.spans[0]!));
    const broken: Record<string, unknown> = { ...spans[1]!, endTimeUnixNano: undefined };
    const request = { resourceSpans: [{ resource: {}, scopeSpans: [{ scope: { name: 't' }, spans: [spans[0], broken, spans[2]] }] }] };
    const res = await post(r, encodeTraceRequest(request), PROTOBUF);
    expect(res.status).toBe(200);
    const body = decodeTraceResponse(new Uint8Array(await res.arrayBuffer()));
    expect(body).toEqual({ partialSuccess: { rejectedSpans: '1', errorMessage: `skipped span ${broken.spanId as string}: span has no end time (endTimeUnixNano)` } });
    const json = await post(r, JSON.stringify(request), JSON_TYPE);
    expect(await json.json()).toEqual({ partialSuccess: { rejectedSpans: 1, errorMessage: `skipped span ${broken.spanId as string}: span has no end time (endTimeUnixNano)` } });
    expect(r.pipeline.receiver.stats).toMatchObject({ acceptedSpans: 4, rejectedSpans: 2 });
  });

  it('partial success: a span whose session id holds a control character is rejected, as file ingestion skips it', async () => {
    const r = await rig();
    const line = structuredClone(SCENARIO_LINES.at(-1)!) as { resourceSpans: { scopeSpans: { spans: { spanId: string; attributes: { key: string; value: { stringValue: string } }[] }[] }[] }[] };
    const root = line.resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
    root.attributes.find((a) => a.key === 'gen_ai.conversation.id')!.value.stringValue = 'trip\n2026';
    const res = await post(r, JSON.stringify(line), JSON_TYPE);
    expect(await res.json()).toEqual({ partialSuccess: { rejectedSpans: 1, errorMessage: `skipped span ${root.spanId}: session id "trip\\u000a2026" must not contain a control character (U+0000–U+001F, U+007F)` } });
  });

  it('400 for a body that does not decode (protobuf, JSON, gzip), with a google.rpc.Status', async () => {
    const r = await rig();
    const cut = encodeTraceRequest(RAW).subarray(0, 40);
    const res = await post(r, cut, PROTOBUF);
    expect(res.status).toBe(400);
    const json = await post(r, '{"resourceSpans": [', JSON_TYPE);
    expect(json.status).toBe(400);
    expect(((await json.json()) as { code: number; message: string })).toMatchObject({ code: 3, message: expect.stringMatching(/^body is not valid JSON: /) as unknown });
    const gz = await post(r, Buffer.from('not gzip'), { ...PROTOBUF, 'content-encoding': 'gzip' });
    expect(gz.status).toBe(400);
    expect(r.pipeline.receiver.stats.acceptedSpans).toBe(0);
  });

  it('any body is answered 200 (perhaps with rejected spans) or 400, never a server error', async () => {
    const r = await rig({ sessionIdleMs: 60_000 });
    const twin = encodeTraceRequest(RAW);
    const bodies = fc.oneof(
      fc.uint8Array({ maxLength: 256 }),
      fc.tuple(fc.nat(twin.length - 1), fc.uint8Array({ minLength: 1, maxLength: 4 })).map(([at, bytes]) => Buffer.concat([twin.subarray(0, at), bytes, twin.subarray(at + bytes.length)])),
    );
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const res = await post(r, body, PROTOBUF);
        expect([200, 400]).toContain(res.status);
      }),
      { numRuns: 200 },
    );
  });

  it('413 above the size limit, before and after gzip', async () => {
    const r = await rig({ maxBodyBytes: 2048 });
    const big = JSON.stringify(RAW);
    expect(big.length).toBeGreaterThan(2048);
    const res = await post(r, big, { ...JSON_TYPE, 'content-length': String(big.length) });
    expect([res.status, ((await res.json()) as { message: string }).message]).toEqual([413, 'request body larger than 2048 bytes']);
    const bomb = gzipSync(Buffer.alloc(1 << 20, 0x20));
    expect(bomb.length).toBeLessThan(2048);
    const inflated = await post(r, bomb, { ...JSON_TYPE, 'content-encoding': 'gzip' });
    expect([inflated.status, ((await inflated.json()) as { message: string }).message]).toEqual([413, 'request body larger than 2048 bytes once gunzipped']);
  });

  it('a chunked body (no Content-Length) is counted as it is read: 413 in the request encoding once past the limit, read whole under it', async () => {
    const r = await rig({ maxBodyBytes: 2048, completeOnRoot: true });
    const postChunked = (bytes: Uint8Array, headers: Record<string, string>) =>
      r.pipeline.app.request('/v1/traces', { method: 'POST', body: chunkedBody(bytes, 100), duplex: 'half', headers } as RequestInit);
    const big = new TextEncoder().encode(JSON.stringify(RAW));
    const refused = await postChunked(big, JSON_TYPE);
    expect([refused.status, await refused.json()]).toEqual([413, { code: 3, message: 'request body larger than 2048 bytes' }]);
    const proto = encodeTraceRequest(RAW);
    const refusedProto = await postChunked(new Uint8Array(3000).fill(1), PROTOBUF);
    expect([refusedProto.status, refusedProto.headers.get('content-type')]).toEqual([413, 'application/x-protobuf']);
    const small = await rig({ maxBodyBytes: proto.byteLength, completeOnRoot: true });
    const read = await small.pipeline.app.request('/v1/traces', { method: 'POST', body: chunkedBody(proto, 100), duplex: 'half', headers: PROTOBUF } as RequestInit);
    expect(read.status).toBe(200);
    await small.pipeline.receiver.settled();
    expect(await small.client.store.getSession('053074667b1113278073667614bb3e19')).toMatchObject({ id: '053074667b1113278073667614bb3e19' });
  });

  it('415 for another content type or encoding', async () => {
    const r = await rig();
    expect((await post(r, 'x', { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post(r, 'x', { ...JSON_TYPE, 'content-encoding': 'br' })).status).toBe(415);
  });

  it('429 with Retry-After once the buffer is full, the refused span not kept', async () => {
    const r = await rig({ maxBufferedSpans: 5, retryAfterSeconds: 3, sessionIdleMs: 60_000 });
    // Spans without their session's id (the root comes last) wait in the buffer.
    for (const line of SCENARIO_LINES.slice(0, 5)) expect((await post(r, encodeTraceRequest(line), PROTOBUF)).status).toBe(200);
    expect(r.pipeline.receiver.bufferedSpans).toBe(5);
    const full = await post(r, encodeTraceRequest(SCENARIO_LINES[5]!), PROTOBUF);
    expect([full.status, full.headers.get('retry-after')]).toEqual([429, '3']);
    // Never unbounded: the refused span was not kept.
    expect(r.pipeline.receiver.bufferedSpans).toBe(5);
  });

  it('429 past 16 requests being read at once', async () => {
    const r = await rig();
    const releases = Array.from({ length: 16 }, () => r.pipeline.receiver.admit());
    const res = await post(r, encodeTraceRequest(RAW), PROTOBUF);
    expect([res.status, res.headers.get('retry-after')]).toEqual([429, '2']);
    releases.forEach((release) => release());
    expect((await post(r, encodeTraceRequest(RAW), PROTOBUF)).status).toBe(200);
  });

  it('429 for one request whose spans alone would pass the buffer', async () => {
    const r = await rig({ maxBufferedSpans: 5 });
    const spans = SCENARIO_LINES.slice(0, 6).map((l) => (l.resourceSpans as { scopeSpans: { spans: unknown[] }[] }[])[0]!.scopeSpans[0]!.spans[0]);
    const res = await post(r, encodeTraceRequest({ resourceSpans: [{ resource: {}, scopeSpans: [{ spans }] }] }), PROTOBUF);
    expect([res.status, res.headers.get('retry-after')]).toEqual([429, '2']);
    expect(r.pipeline.receiver.bufferedSpans).toBe(0);
  });
});

describe('the live pipeline with the OpenTelemetry JS SDK', () => {
  it('a multi-agent session exported over OTLP/HTTP protobuf is assembled, stored, evaluated, and its results arrive as gen_ai.evaluation.result events linked to their spans', async () => {
    const sink = await new LogSink().start();
    try {
      const r = await rig({ sessionIdleMs: 300, exportOtlp: { enabled: true, endpoint: sink.url } }, { listen: true });
      const exporter = new OTLPTraceExporter({ url: r.url! });
      const provider = await emitScenario(new BatchSpanProcessor(exporter, { maxExportBatchSize: 4 }));
      await provider.shutdown();
      const stored = await r.client.store.getSession(SESSION_ID);
      expect(stored).toBeDefined();
      expect([stored!.agentCalls.map((a) => a.agentName), stored!.llmCalls.length, stored!.toolCalls.map((t) => t.toolName)]).toEqual([
        ['triage', 'flight_agent', 'notifier'],
        6,
        ['search_flights', 'book_flight', 'send_email'],
      ]);
      await waitFor('the evaluation events', async () => sink.records.length > 0 && sink.records.length === (await r.client.getMetrics(SESSION_ID, { recursive: true })).length);
      const results = await r.client.getMetrics(SESSION_ID, { recursive: true });
      expect(results.length).toBeGreaterThan(10);
      const elementSpan = new Map([...stored!.masCalls, ...stored!.agentCalls, ...stored!.llmCalls, ...stored!.toolCalls].map((c) => [c.id, c.id]));
      for (const result of results) {
        const record = sink.records.find((x) => x.attributes['mce.result.id'] === result.id);
        expect(record, result.id).toBeDefined();
        expect(record!.eventName).toBe('gen_ai.evaluation.result');
        expect(record!.traceId).toBe(TRACE_ID);
        // A call's result is linked to the call's span; the session's to its root (the MAS call's span).
        expect(record!.spanId).toBe(elementSpan.get(result.measures) ?? stored!.masCalls[0]!.id);
        expect(record!.attributes).toMatchObject({
          'gen_ai.evaluation.name': result.name,
          'gen_ai.evaluation.score.value': result.result,
          'mce.metric.provider': result.provider,
          'mce.metric.unit': result.unit,
          'mce.session.id': SESSION_ID,
        });
      }
      const duration = results.find((x) => x.name === 'Duration' && x.level === 'Session');
      expect(duration?.result).toBe(9000);
    } finally {
      await sink.close();
    }
  }, 30_000);

  it('a session that receives spans after it was evaluated is evaluated again, its results overwritten', async () => {
    const r = await rig({ sessionIdleMs: 100 });
    const [first, ...rest] = [SCENARIO_LINES.slice(0, 7), SCENARIO_LINES.slice(7)];
    // The root's line carries the session id: send it with the first part so the part is a session at once.
    const root = SCENARIO_LINES.at(-1)!;
    for (const line of [...first!, root]) await post(r, encodeTraceRequest(line), PROTOBUF);
    await waitFor('the first evaluation', () => r.pipeline.receiver.stats.evaluatedSessions === 1);
    const before = await r.client.getMetrics(SESSION_ID, { recursive: true });
    for (const line of rest[0]!) await post(r, encodeTraceRequest(line), PROTOBUF);
    await waitFor('the second evaluation', () => r.pipeline.receiver.stats.evaluatedSessions === 2);
    await r.pipeline.receiver.settled();
    const after = await r.client.getMetrics(SESSION_ID, { recursive: true });
    // Overwritten, not added beside the old ones: every earlier result id is still there, once per metric and element.
    const ids = new Set(after.map((x) => x.id));
    expect(before.every((x) => ids.has(x.id))).toBe(true);
    expect(new Set(after.map((x) => `${x.name}|${x.level}|${x.measures}`)).size).toBe(after.length);
    const duration = (rs: typeof after) => rs.find((x) => x.name === 'Duration' && x.level === 'Session')?.result;
    expect([duration(before), duration(after)]).toEqual([9000, 9000]);
    const llmCalls = (rs: typeof after) => rs.filter((x) => x.level === 'LLMCall' && x.name === 'Duration').length;
    expect(llmCalls(after)).toBeGreaterThan(llmCalls(before));
    expect((await r.client.store.getSession(SESSION_ID))!.llmCalls).toHaveLength(6);
  });
});

describe('mounted in the REST API (mce serve)', () => {
  it('takes protobuf at /v1/traces behind the API token, while the JSON routes keep their content-type check', async () => {
    const r = await rig();
    const api = createApiApp(r.client, { token: 's3cret', otlpTraces: r.pipeline.app });
    const body = encodeTraceRequest(RAW);
    expect((await api.request('/v1/traces', { method: 'POST', body, headers: PROTOBUF })).status).toBe(401);
    const res = await api.request('/v1/traces', { method: 'POST', body, headers: { ...PROTOBUF, authorization: 'Bearer s3cret' } });
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'application/x-protobuf']);
    expect((await api.request('/sessions', { method: 'POST', body, headers: { ...PROTOBUF, authorization: 'Bearer s3cret' } })).status).toBe(415);
    expect((await api.request('/v1/traces', { headers: { authorization: 'Bearer s3cret' } })).status).toBe(405);
  });
});

describe('evaluation', () => {
  it('a session that completes with nothing stored (spans of no call kind) is left out, not failing the others of its batch', async () => {
    const r = await rig({ sessionIdleMs: 100 });
    const http = { traceId: 'f'.repeat(32), spanId: 'e'.repeat(16), name: 'GET /health', kind: 2, startTimeUnixNano: '1764576000000000000', endTimeUnixNano: '1764576000100000000', attributes: [{ key: 'http.request.method', value: { stringValue: 'GET' } }] };
    const raw = RAW as { resourceSpans: { scopeSpans: { spans: unknown[] }[] }[] };
    const both = { resourceSpans: [{ resource: {}, scopeSpans: [{ spans: [...raw.resourceSpans[0]!.scopeSpans[0]!.spans, http] }] }] };
    expect((await post(r, encodeTraceRequest(both), PROTOBUF)).status).toBe(200);
    await waitFor('the evaluation', () => r.pipeline.receiver.stats.evaluatedSessions === 2);
    expect(r.pipeline.receiver.stats.failedEvaluations).toBe(0);
    expect((await r.client.getMetrics('053074667b1113278073667614bb3e19')).length).toBeGreaterThan(0);
    expect(await r.client.store.getSession('f'.repeat(32))).toBeUndefined();
  });
});

describe('faults', () => {
  it('the store down while spans arrive: 503 with Retry-After, the SDK retries after it, nothing is lost once the store is back', async () => {
    const r = await rig({ sessionIdleMs: 200, retryAfterSeconds: 1 }, { listen: true, busyTimeoutMs: 20 });
    const holder = new Database(r.file);
    holder.exec('BEGIN IMMEDIATE'); // another writer holds the database: every write of the receiver fails
    const released = new Promise<void>((resolve) => setTimeout(() => {
      holder.exec('ROLLBACK');
      holder.close();
      resolve();
    }, 1500));
    const exporter = new OTLPTraceExporter({ url: r.url!, timeoutMillis: 10_000 });
    const provider = await emitScenario(new BatchSpanProcessor(exporter, { maxExportBatchSize: 20 }));
    await provider.shutdown();
    await released;
    expect(r.log.lines.filter((l) => l.level === 'error').map((l) => l.msg)).toContain('receiver: storing spans failed; answering 503 until the store is back');
    const stored = await r.client.store.getSession(SESSION_ID);
    expect(stored?.llmCalls).toHaveLength(6);
    expect(stored?.toolCalls).toHaveLength(3);
    expect(r.pipeline.receiver.stats.acceptedSpans).toBe(14);
  }, 30_000);

  it("a write that fails keeps the earlier requests' held spans, not the failed request's own (its client resends them)", async () => {
    const r = await rig({ sessionIdleMs: 60_000, retryAfterSeconds: 1 }, { busyTimeoutMs: 20 });
    const spanOf = (line: Record<string, unknown>) => (line.resourceSpans as { scopeSpans: { spans: unknown[] }[] }[])[0]!.scopeSpans[0]!.spans[0];
    for (const line of SCENARIO_LINES.slice(0, 4)) await post(r, encodeTraceRequest(line), PROTOBUF);
    const holder = new Database(r.file);
    holder.exec('BEGIN IMMEDIATE');
    // A span without the session id (held, then released by the root in the same request) and the root.
    const last = { resourceSpans: [{ resource: {}, scopeSpans: [{ spans: [spanOf(SCENARIO_LINES[4]!), spanOf(SCENARIO_LINES.at(-1)!)] }] }] };
    expect((await post(r, encodeTraceRequest(last), PROTOBUF)).status).toBe(503);
    expect(r.pipeline.receiver.bufferedSpans).toBe(4);
    holder.exec('ROLLBACK');
    holder.close();
    await new Promise((resolve) => setTimeout(resolve, 1100)); // Retry-After
    expect((await post(r, encodeTraceRequest(last), PROTOBUF)).status).toBe(200);
    expect(r.pipeline.receiver.bufferedSpans).toBe(0);
    expect(r.log.lines.filter((l) => l.msg?.includes('duplicate'))).toEqual([]);
    const session = await r.client.store.getSession(SESSION_ID);
    expect([session!.masCalls.length, session!.agentCalls.map((a) => a.agentName), session!.llmCalls.length]).toEqual([1, ['triage'], 2]);
  });

  it('the store down when a session completes: its evaluation is tried again after Retry-After and stored once the store is back', async () => {
    const r = await rig({ sessionIdleMs: 500, completeOnRoot: false, retryAfterSeconds: 1 }, { busyTimeoutMs: 20 });
    for (const line of SCENARIO_LINES) expect((await post(r, encodeTraceRequest(line), PROTOBUF)).status).toBe(200);
    const holder = new Database(r.file);
    holder.exec('BEGIN IMMEDIATE'); // the results cannot be written
    await waitFor('a failed evaluation', () => r.log.lines.some((l) => l.msg === 'receiver: evaluating complete sessions failed; trying again after Retry-After'));
    holder.exec('ROLLBACK');
    holder.close();
    await waitFor('the evaluation tried again', () => r.pipeline.receiver.stats.evaluatedSessions === 1);
    expect(r.pipeline.receiver.stats.failedEvaluations).toBe(0);
    expect((await r.client.getMetrics(SESSION_ID)).length).toBeGreaterThan(0);
  });

  it('stopping with spans buffered stores them (a trace without its session id as a session of its own) and refuses new ones with 503', async () => {
    const r = await rig({ sessionIdleMs: 60_000 });
    for (const line of SCENARIO_LINES.slice(0, 4)) await post(r, encodeTraceRequest(line), PROTOBUF);
    expect(r.pipeline.receiver.bufferedSpans).toBe(4);
    const closing = r.pipeline.close();
    const late = await post(r, encodeTraceRequest(SCENARIO_LINES[4]!), PROTOBUF);
    expect([late.status, late.headers.get('retry-after')]).toEqual([503, '2']);
    expect(await closing).toEqual({ flushedSpans: 4, evaluated: 1 });
    const stored = await r.client.store.getSession(TRACE_ID);
    expect(stored?.llmCalls.length).toBeGreaterThan(0);
    expect((await r.client.getMetrics(TRACE_ID)).length).toBeGreaterThan(0);
  });
});

// The decoder is the one the file reader uses: a request decodes to the shape the OTLP reader takes.
it('decodeTraceRequest gives the OTLP/JSON shape, ids in hex', () => {
  const decoded = decodeTraceRequest(encodeTraceRequest(RAW)) as { resourceSpans: { scopeSpans: { spans: { traceId: string }[] }[] }[] };
  expect(decoded.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.traceId).toBe('053074667b1113278073667614bb3e19');
});
