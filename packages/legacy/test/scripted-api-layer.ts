/**
 * A small telemetry-hub api-layer on loopback, scripted by the test: it serves the sessions it is given (ClickHouse
 * `otel_traces` rows) as `GET /traces/sessions` and `GET /traces/sessions/spans` do, ignoring `limit`, `page` and
 * `name` as the real one does, and records every request and every metric posted to `/metrics/session|span`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ApiLayerRow {
  Timestamp: string;
  [key: string]: unknown;
}

export interface RecordedCall {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
}

export interface ScriptedApiLayer {
  url: string;
  calls: RecordedCall[];
  /** Bodies posted, per endpoint (`/metrics/session`, `/metrics/span`). */
  posted: Map<string, unknown[]>;
  /** Answer the next POSTs to the metric endpoints with this status (default 200). */
  failPostsWith(status: number | undefined): void;
  close(): Promise<void>;
}

const startOf = (rows: readonly ApiLayerRow[]): string => rows.map((r) => r.Timestamp).sort()[0] ?? '';

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

export async function startScriptedApiLayer(sessions: Readonly<Record<string, readonly ApiLayerRow[]>>): Promise<ScriptedApiLayer> {
  const calls: RecordedCall[] = [];
  const posted = new Map<string, unknown[]>();
  let postStatus: number | undefined;
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const query = Object.fromEntries(url.searchParams);
      const body = req.method === 'POST' ? await readBody(req) : undefined;
      calls.push({ method: req.method ?? '', path: url.pathname, query, headers: req.headers, ...(body !== undefined ? { body } : {}) });
      if (req.method === 'GET' && url.pathname === '/traces/sessions') {
        if (!query.start_time || !query.end_time) return send(res, 422, { detail: 'start_time and end_time are required' });
        const from = Date.parse(query.start_time);
        const to = Date.parse(query.end_time);
        const data = Object.entries(sessions)
          .map(([id, rows]) => ({ id, start_timestamp: startOf(rows) }))
          .filter((s) => Date.parse(s.start_timestamp) >= from && Date.parse(s.start_timestamp) <= to)
          .sort((a, b) => b.start_timestamp.localeCompare(a.start_timestamp));
        return send(res, 200, { data, total: data.length });
      }
      if (req.method === 'GET' && url.pathname === '/traces/sessions/spans') {
        const ids = (query.session_ids ?? '').split(',').filter(Boolean);
        if (ids.length > 50) return send(res, 400, { detail: 'at most 50 session ids' });
        const data = Object.fromEntries(ids.filter((id) => id in sessions).map((id) => [id, sessions[id]]));
        return send(res, 200, { data, notfound_session_ids: ids.filter((id) => !(id in sessions)) });
      }
      if (req.method === 'POST' && (url.pathname === '/metrics/session' || url.pathname === '/metrics/span')) {
        if (postStatus !== undefined) return send(res, postStatus, { detail: 'scripted failure' });
        posted.set(url.pathname, [...(posted.get(url.pathname) ?? []), body]);
        return send(res, 200, { status: 'ok' });
      }
      send(res, 404, { detail: 'Not Found' });
    })().catch((error: unknown) => send(res, 500, { detail: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    posted,
    failPostsWith: (status) => void (postStatus = status),
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}
