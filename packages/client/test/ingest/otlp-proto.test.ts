/**
 * OTLP protobuf trace files: the multi-agent scenario emitted by the OpenTelemetry JS SDK and serialised by its own
 * protobuf and JSON serialisers (otlp-transformer) must read as the same sessions; so must each dialect fixture and its
 * protobuf twin; the Collector file exporter's length-prefixed stream and protobuf's varint-delimited one too.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectFormat, IngestError, readSessions } from '../../../ingest/src/index.js';
import { encodeTraceRequest } from '../../../ingest/src/otlp-protobuf.js';
import { runCli, tempWorkspace } from '../cli/run-cli.js';
import { fixture, summarise } from '../../../ingest/test/helpers.js';
import { SESSION_ID } from '../../../ingest/test/multi-agent-scenario.js';
import { emitScenario } from '../../../ingest/test/otel-sdk-scenario.js';

const dir = mkdtempSync(join(tmpdir(), 'mce-otlp-proto-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, bytes: Uint8Array | string) => {
  const p = join(dir, name);
  writeFileSync(p, bytes);
  return p;
};

const uint32Prefixed = (messages: Uint8Array[]) =>
  Buffer.concat(messages.flatMap((m) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(m.length);
    return [len, m];
  }));

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}
const varintDelimited = (messages: Uint8Array[]) => Buffer.concat(messages.flatMap((m) => [varint(m.length), m]));

let spans: ReadableSpan[] = [];
beforeAll(async () => {
  const exporter = new InMemorySpanExporter();
  const provider = await emitScenario(new SimpleSpanProcessor(exporter));
  spans = exporter.getFinishedSpans();
  await provider.shutdown();
});

describe('OTLP protobuf files written by the OpenTelemetry JS SDK', () => {
  it('read as the same session as their OTLP/JSON twin', async () => {
    expect(spans).toHaveLength(14);
    const pb = write('scenario.pb', ProtobufTraceSerializer.serializeRequest(spans)!);
    const json = write('scenario.json', Buffer.from(JsonTraceSerializer.serializeRequest(spans)!));
    expect(await detectFormat(pb)).toBe('otlp-proto');
    expect(await detectFormat(json)).toBe('otlp-json');
    const fromPb = await readSessions(pb);
    const fromJson = await readSessions(json);
    expect(fromPb.warnings).toEqual([]);
    expect(fromPb.sessions).toEqual(fromJson.sessions);
    const [s] = fromPb.sessions;
    expect(s!.id).toBe(SESSION_ID);
    expect(summarise(s!)).toMatchObject({
      counts: { MASCall: 1, AgentCall: 3, LLMCall: 6, ToolCall: 3 },
      agents: ['triage', 'flight_agent', 'notifier'],
      tools: ['search_flights', 'book_flight', 'send_email'],
      errors: ['book_flight'],
    });
    expect(s!.startTime).toBe(Date.UTC(2025, 11, 1, 8, 0, 0));
  });

  it('a Collector file exporter stream (4-byte big-endian lengths) and a varint-delimited one read as the same session', async () => {
    const whole = await readSessions(write('whole.pb', ProtobufTraceSerializer.serializeRequest(spans)!));
    // Two batches, as an exporter writes them: the session is split across messages.
    const parts = [ProtobufTraceSerializer.serializeRequest(spans.slice(0, 6))!, ProtobufTraceSerializer.serializeRequest(spans.slice(6))!];
    const collector = await readSessions(write('collector-traces', uint32Prefixed(parts)));
    const delimited = await readSessions(write('delimited.binpb', varintDelimited(parts)));
    expect(collector.sessions).toEqual(whole.sessions);
    expect(delimited.sessions).toEqual(whole.sessions);
  });

  it('mce ingest stores a .pb file found in a folder, and --format otlp-proto forces the reader', async () => {
    const ws = tempWorkspace();
    const folder = join(ws.dir, 'traces');
    mkdirSync(folder);
    writeFileSync(join(folder, 'trip.pb'), ProtobufTraceSerializer.serializeRequest(spans)!);
    const run = await runCli(['ingest', folder, '--json'], ws);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.stringify(run.json())).toContain(SESSION_ID);
    const forced = await runCli(['ingest', join(folder, 'trip.pb'), '--format', 'otlp-proto', '--json'], ws);
    expect(forced.code, forced.stderr).toBe(0);
    const wrong = await runCli(['ingest', fixture('otlp-dialects/raw.json'), '--format', 'otlp-proto'], ws);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('raw.json: not OTLP protobuf');
  });
});

describe('dialect fixtures and their protobuf twins', () => {
  for (const name of ['braintrust', 'litellm', 'openinference', 'openllmetry', 'openllmetry-legacy', 'raw', 'raw-folk', 'vercel']) {
    it(`${name}.json`, async () => {
      const path = fixture(`otlp-dialects/${name}.json`);
      const request = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
      const pb = write(`${name}.pb`, encodeTraceRequest(request));
      const [fromPb, fromJson] = [await readSessions(pb), await readSessions(path)];
      expect(fromPb.sessions.length).toBeGreaterThan(0);
      expect(fromPb.sessions).toEqual(fromJson.sessions);
      // The same warnings, naming the .pb file where the JSON's name the .json (without a line: binary has none).
      const strip = (ws: typeof fromPb.warnings) => ws.map(({ code, message }) => ({ code, message }));
      expect(strip(fromPb.warnings)).toEqual(strip(fromJson.warnings));
    });
  }
});

describe('bad protobuf files', () => {
  it('a cut-off message is an IngestError naming the file', async () => {
    const bytes = ProtobufTraceSerializer.serializeRequest(spans)!;
    const p = write('cut.pb', bytes.subarray(0, Math.floor(bytes.length / 2)));
    const err = await readSessions(p).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IngestError);
    expect((err as IngestError).file).toBe(p);
    expect((err as IngestError).message).toMatch(/cut\.pb: invalid OTLP protobuf: /);
  });

  it('a cut-off stream names the message that does not decode and its byte offset', async () => {
    const parts = [ProtobufTraceSerializer.serializeRequest(spans.slice(0, 6))!, ProtobufTraceSerializer.serializeRequest(spans.slice(6))!];
    // The second message's length says it is whole, its bytes are not: a field inside it runs past its end.
    const second = Buffer.from(parts[1]!);
    second[1] = 0x7f;
    const p = write('bad-stream', uint32Prefixed([parts[0]!, second]));
    await expect(readSessions(p)).rejects.toThrow(`bad-stream: invalid OTLP protobuf message 2 (at byte ${4 + parts[0]!.length + 4}): `);
  });

  it('binary that is no protobuf is refused by name; a gzip file is text to unpack, not protobuf', async () => {
    const { gzipSync } = await import('node:zlib');
    // Field 15 with wire type 7 (no such type), then bytes that are no UTF-8: binary, and no protobuf message.
    const p = write('traces.bin', Buffer.from([0x7f, 0xff, 0x00, 0xfe, 0x13, 0x88]));
    await expect(readSessions(p)).rejects.toThrow(`${p}: not OTLP protobuf (neither one TracesData message nor length-prefixed ones)`);
    const gz = write('traces.json.gz', gzipSync(readFileSync(fixture('otlp-dialects/openinference.json'))));
    const plain = write('traces.json', readFileSync(fixture('otlp-dialects/openinference.json')));
    expect((await readSessions(gz)).sessions).toEqual((await readSessions(plain)).sessions);
  });
});
