/** A small OTLP/HTTP logs endpoint on loopback: decodes each ExportLogsServiceRequest (protobuf) and keeps its records. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeLogsRequest } from '../../../ingest/src/otlp-protobuf.js';
import { decodeKeyValues } from '../../../ingest/src/values.js';

export interface ReceivedRecord {
  eventName: string;
  traceId: string;
  spanId: string;
  attributes: Record<string, unknown>;
}

const hex = (base64: unknown) => (typeof base64 === 'string' ? Buffer.from(base64, 'base64').toString('hex') : '');
const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? (v as Record<string, unknown>[]) : []);

export class LogSink {
  readonly records: ReceivedRecord[] = [];
  #server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const request = decodeLogsRequest(Buffer.concat(chunks));
        for (const rl of list(request.resourceLogs)) {
          for (const sl of list(rl.scopeLogs)) {
            for (const r of list(sl.logRecords)) {
              this.records.push({ eventName: String(r.eventName ?? ''), traceId: hex(r.traceId), spanId: hex(r.spanId), attributes: decodeKeyValues(r.attributes) });
            }
          }
        }
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server!.address() as AddressInfo).port}/v1/logs`;
    return this;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }
}

/** Resolves once `check` holds (polled), else rejects after `timeoutMs` saying what was waited for. */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
