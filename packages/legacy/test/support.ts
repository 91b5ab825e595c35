/** A client over a fresh SQLite store holding ClickHouse fixtures, and the legacy routes served on loopback. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MCEClient, defaultMceConfig, openStore, serveApi } from '@mce/client';
import { legacyRoutes, type LegacyAppOptions } from '../src/index.js';

/** The four ClickHouse `otel_traces` exports of the telemetry-hub repository (see their README). */
export const fixture = (name: string): string => fileURLToPath(new URL(`../../ingest/test/data/fixtures/clickhouse-otel-traces/${name}`, import.meta.url));

export const FIXTURE_FILES = ['langgraph_supervisor_research.json', 'langgraph_llamaindex_linear_5_agents.json', 'autogen_langgraph_moderator.json', 'langgraph_single_agent_tool.json'] as const;

export async function openClientWith(files: readonly string[]): Promise<{ client: MCEClient; sessionIds: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'mce-legacy-'));
  const client = await MCEClient.open({ config: defaultMceConfig(), store: await openStore(`sqlite:${join(dir, 'kg.db')}`), cache: false });
  const sessionIds: string[] = [];
  for (const file of files) sessionIds.push(...(await client.ingest([fixture(file)])).sessionIds);
  return { client, sessionIds };
}

export interface Served {
  url: string;
  close(): Promise<void>;
}

/** The legacy routes mounted in the mce API server (its guard and body limit in front), on a free loopback port. */
export async function serveLegacy(client: MCEClient, options: LegacyAppOptions = {}): Promise<Served> {
  const server = await serveApi(client, { port: 0, extraRoutes: [legacyRoutes(client, options)] });
  return { url: `http://127.0.0.1:${server.port}`, close: () => server.close() };
}

/** A JSON answer read by tests: its shape is what they assert. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each test asserts the fields it reads
export type JsonBody = any;

export async function postJson(url: string, body: unknown): Promise<{ status: number; body: JsonBody }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

export async function closeClient(client: MCEClient): Promise<void> {
  await client.store.close();
  await client.close();
}
