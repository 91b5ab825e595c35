/**
 * Sessions of a stream in chunks, computed one chunk at a time as the input is read (`mce compute --input`), so
 * memory holds one chunk, not the input: a 1 GB JSON Lines file read whole before computing ran out of memory.
 * A chunk ends at `sessions` sessions or `elements` calls; parts of one session in a chunk (a session written in
 * two files) are merged by id, as the store merges them.
 */
import { elementCount, type Session } from '@mce/core';
import { coalesceSessions } from '@mce/ingest';

export interface ChunkLimits {
  sessions: number;
  elements: number;
}

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
