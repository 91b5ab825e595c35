/**
 * A telemetry-hub api-layer as session source and result sink: `GET /traces/sessions` lists a window's sessions,
 * `GET /traces/sessions/spans?session_ids=…` returns their ClickHouse `otel_traces` rows, and `POST /metrics/session`
 * / `POST /metrics/span` store one result each. The rows are read by mce's ClickHouse reader, as a file of them is.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redactUrl, type Session } from '@mce/core';
import type { LegacyMetricResult, LegacyResults } from './response.js';
import type { BatchQuery, LoadedSessions, ResultSink, SessionSource, UnwrittenResult } from './sources.js';

export interface ApiLayerOptions {
  /** `API_BASE_URL`. */
  baseUrl: string;
  /** `DB_ADAPTER_TYPE_API_HEADERS`: extra headers (auth) for every request. */
  headers?: Record<string, string>;
  /** `SESSIONS_TRACES_MAX`: session ids per spans request (default 20). */
  sessionsPerRequest?: number;
  /** `PAGINATION_LIMIT`: page size asked of the session listing (default 50). */
  pageSize?: number;
  fetch?: typeof fetch;
}

/** The api-layer answered with an error or not at all: names the URL. */
export class ApiLayerError extends Error {
  override name = 'ApiLayerError';
}

const sessionsListing = (body: unknown): string[] => {
  const data = (body as { data?: unknown }).data;
  if (!Array.isArray(data)) throw new ApiLayerError('GET /traces/sessions: the answer has no "data" list');
  return data.flatMap((s) => (typeof (s as { id?: unknown }).id === 'string' ? [(s as { id: string }).id] : []));
};

export class ApiLayer implements SessionSource, ResultSink {
  readonly name = 'api-layer';
  readonly #base: string;
  readonly #headers: Record<string, string>;
  readonly #perRequest: number;
  readonly #pageSize: number;
  readonly #fetch: typeof fetch;

  constructor(options: ApiLayerOptions) {
    this.#base = options.baseUrl.replace(/\/+$/, '');
    this.#headers = options.headers ?? {};
    this.#perRequest = Math.max(1, options.sessionsPerRequest ?? 20);
    this.#pageSize = Math.max(1, options.pageSize ?? 50);
    this.#fetch = options.fetch ?? fetch;
  }

  async #request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const url = `${this.#base}${path}`;
    const shown = redactUrl(url);
    let response: Response;
    try {
      response = await this.#fetch(url, {
        method,
        headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...this.#headers },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (error) {
      throw new ApiLayerError(`api-layer ${method} ${shown}: ${(error as Error).message}`, { cause: error });
    }
    const text = await response.text();
    if (!response.ok) throw new ApiLayerError(`api-layer ${method} ${shown}: HTTP ${response.status} ${text.slice(0, 200)}`);
    try {
      return text === '' ? null : JSON.parse(text);
    } catch {
      throw new ApiLayerError(`api-layer ${method} ${shown}: the answer is not JSON`);
    }
  }

  /**
   * The window's session ids, newest first as the api-layer orders them. Pages are asked as the old engine asked them
   * (`limit`, `page`); an api-layer that ignores them sends the whole list again, so a page with no new id ends it.
   */
  async listSessionIds(batch: BatchQuery, maxSessions: number): Promise<string[]> {
    const ids: string[] = [];
    const seen = new Set<string>();
    for (let page = 0; ids.length < maxSessions; page++) {
      const params = new URLSearchParams({ start_time: batch.start, end_time: batch.end, limit: String(Math.min(this.#pageSize, maxSessions - ids.length)), page: String(page) });
      if (batch.appName) params.set('name', batch.appName);
      const fresh = sessionsListing(await this.#request('GET', `/traces/sessions?${params}`)).filter((id) => !seen.has(id));
      if (fresh.length === 0) break;
      for (const id of fresh) seen.add(id);
      ids.push(...fresh);
    }
    return ids.slice(0, Math.min(maxSessions, batch.numSessions ?? maxSessions));
  }

  async loadSessions(ids: readonly string[]): Promise<LoadedSessions> {
    const rows: unknown[] = [];
    const notFound: string[] = [];
    for (let i = 0; i < ids.length; i += this.#perRequest) {
      const chunk = ids.slice(i, i + this.#perRequest);
      const body = (await this.#request('GET', `/traces/sessions/spans?session_ids=${chunk.map(encodeURIComponent).join(',')}`)) as { data?: Record<string, unknown[] | null>; notfound_session_ids?: string[] | null };
      for (const spans of Object.values(body?.data ?? {})) rows.push(...(spans ?? []).filter((s) => s !== null));
      notFound.push(...(body?.notfound_session_ids ?? []));
    }
    const byId = await sessionsOfRows(rows);
    for (const id of ids) if (!byId.has(id) && !notFound.includes(id)) notFound.push(id);
    return { sessions: ids.flatMap((id) => byId.get(id) ?? []), notFound };
  }

  /** One POST per result, as the old engine wrote them; span results to `/metrics/span`, the others to `/metrics/session`. */
  async write(results: LegacyResults): Promise<UnwrittenResult[]> {
    const unwritten: UnwrittenResult[] = [];
    const lists: Array<[string, LegacyMetricResult[]]> = [
      ['/metrics/span', results.span_metrics],
      ['/metrics/session', results.session_metrics],
      ['/metrics/session', results.agent_metrics],
    ];
    for (const [path, list] of lists) {
      for (const result of list) {
        if (result.from_cache) continue;
        try {
          await this.#request('POST', path, metricPayload(result));
        } catch (error) {
          unwritten.push({ metricName: result.metric_name, sessionId: result.session_id[0] ?? '', error: (error as Error).message });
        }
      }
    }
    return unwritten;
  }
}

/** The old `format_metric_payload`: the first session and span id, and the result itself under `metrics`. */
export function metricPayload(result: LegacyMetricResult): Record<string, unknown> {
  return {
    app_id: result.app_name || 'default_app_id',
    app_name: result.app_name || 'default_app_name',
    metrics: result,
    session_id: result.session_id[0] ?? 'default_session_id',
    span_id: result.span_id[0] ?? 'default_span_id',
    trace_id: 'default_trace_id',
  };
}

/** The rows through mce's ClickHouse reader (a file of them in a temporary folder, removed after). */
async function sessionsOfRows(rows: readonly unknown[]): Promise<Map<string, Session>> {
  if (rows.length === 0) return new Map();
  const dir = await mkdtemp(join(tmpdir(), 'mce-legacy-'));
  try {
    const file = join(dir, 'spans.json');
    await writeFile(file, JSON.stringify(rows));
    // Loaded at the first api-layer read: `mce serve` without an api-layer never needs the readers.
    const { readSessions } = await import('@mce/ingest');
    const read = await readSessions(file, { format: 'clickhouse' });
    return new Map(read.sessions.map((s) => [s.id, s]));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
