/**
 * Sessions of a stream in chunks, computed one chunk at a time as the input is read (`mce compute --input`), so
 * memory holds one chunk, not the input: a 1 GB JSON Lines file read whole before computing ran out of memory.
 * A chunk ends at `sessions` sessions or `elements` calls; parts of one session in a chunk (a session written in
 * two files) are merged by id, as the store merges them. `mce compute --input` and `mce check --input` share them.
 */
import type { Logger } from 'pino';
import { elementCount, type Session, type SessionComputation } from '@mce/core';
import { coalesceSessions } from '@mce/ingest';
import type { ComputeRequest, MCEClient } from '../../mce-client.js';

export interface ChunkLimits {
  sessions: number;
  elements: number;
}

/** A chunk of --input sessions ends at 100 sessions or 50,000 calls: memory stays flat however large they are. */
export const INPUT_CHUNKS: ChunkLimits = { sessions: 100, elements: 50_000 };

export async function* sessionChunks(stream: AsyncIterable<Session>, limits: ChunkLimits): AsyncGenerator<Session[]> {
  let chunk: Session[] = [];
  let elements = 0;
  try {
    for await (const session of stream) {
      chunk.push(session);
      elements += elementCount(session);
      if (chunk.length >= limits.sessions || elements >= limits.elements) {
        yield coalesceSessions(chunk);
        chunk = [];
        elements = 0;
      }
    }
  } catch (error) {
    // An unreadable file under --strict: the files before it are whole (the stream handed them over before its
    // error), so they are computed, as `mce ingest` stores them, before the error ends the run.
    if (chunk.length > 0) yield coalesceSessions(chunk);
    throw error;
  }
  if (chunk.length > 0) yield coalesceSessions(chunk);
}

/**
 * A chunk of sessions read from the input written into the store, and the sessions as the store now holds them: a
 * session it already held (an earlier run, or an earlier chunk of this one) is the stored one with the file's part
 * merged in. `mce report --input` merges through a scratch store so; computeInputChunk also computes and stores results.
 */
export async function storeInputChunk(client: MCEClient, chunk: Session[], log: Logger): Promise<Session[]> {
  const stored = await client.store.sessionExists(chunk.map((s) => s.id));
  await client.store.writeSessions(chunk);
  if (stored.size === 0) return chunk;
  // The results must measure that merged session, the one they are stored beside, not the file's part of it.
  const merged = await client.store.getSessions([...stored]);
  log.info({ sessions: [...stored] }, 'already stored: computed over the stored session merged with the file');
  return chunk.map((s) => merged.get(s.id) ?? s);
}

/**
 * One chunk of sessions read from the input computed, and (`store`) stored with its results in short transactions:
 * one transaction for thousands of sessions would hold the SQLite write lock longer than another process waits for it.
 */
export async function computeInputChunk(
  client: MCEClient,
  chunk: Session[],
  request: ComputeRequest,
  store: boolean,
  log: Logger,
): Promise<{ sessions: Session[]; computations: SessionComputation[] }> {
  const sessions = store ? await storeInputChunk(client, chunk, log) : chunk;
  const computations = await client.compute(sessions, request);
  if (store) await client.storeComputations(computations);
  return { sessions, computations };
}
