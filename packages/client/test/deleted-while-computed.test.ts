/**
 * A session deleted while it is computed: storing its computation stores nothing of it (no orphan result) and throws
 * SessionNotFoundError naming it, after the other sessions' results are written.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionNotFoundError } from '@mce/core';
import { MCEClient, defaultMceConfig, openStore } from '../src/index.js';

const sessions = new URL('../../../examples/sessions/', import.meta.url).pathname;

describe('MCEClient: a session deleted while computed', () => {
  it('storeComputations throws SessionNotFoundError for it after storing the other session, and stores nothing of it', async () => {
    await using client = await MCEClient.open({ config: defaultMceConfig(), store: await openStore('sqlite::memory:'), cache: false });
    const ids = (await client.ingest([join(sessions, 'single-agent-tool.json'), join(sessions, 'mcp-tools.json')])).sessionIds;
    expect(ids).toHaveLength(2);
    const [gone, kept] = ids as [string, string];
    const computations = await client.computeStored([gone, kept]);
    expect(await client.deleteSessions(gone)).toEqual([gone]);
    const error = await client.storeComputations(computations).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionNotFoundError);
    expect((error as SessionNotFoundError).sessionIds).toEqual([gone]);
    expect(await client.store.getMetricResults(gone, { recursive: true })).toEqual([]);
    expect((await client.store.queryMetricResults()).every((r) => r.result.sessionId === kept)).toBe(true);
    expect((await client.store.getMetricResults(kept, { recursive: true })).length).toBeGreaterThan(0);
  });
});
