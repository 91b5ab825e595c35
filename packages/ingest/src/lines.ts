/**
 * Lines of a text file, streamed: chunks are split on `\n` (a trailing `\r` is dropped) without readline's
 * per-line regular expression and event machinery. Memory stays at one chunk plus one partial line.
 */
import { textChunks, type FileEncoding } from './text.js';

/**
 * Just under V8's largest young-generation object (128 KiB): a chunk of text larger than that is born in the large
 * object space and, kept alive by the lines sliced from it, lasts until a full collection; below it, it dies young.
 * With 1 MiB chunks the ingest benchmark's 1M spans took 10.6–10.7 s, against 8.8–9.2 s (ingestion.md).
 */
const CHUNK_BYTES = 120 * 1024;

/** The lines of a file, decoded as its bytes say (gzip, UTF-16 with a byte order mark: text.ts); no mark kept. */
export async function* readLines(path: string, chunkBytes = CHUNK_BYTES, encoding?: FileEncoding): AsyncGenerator<string> {
  const input = textChunks(path, chunkBytes, encoding);
  // The pieces of a line that spans chunks, joined once at its end: appending to one string and searching it for
  // `\n` after every chunk would copy the whole partial line again each time (quadratic in a long line).
  let pieces: string[] = [];
  const withoutCr = (line: string) => (line.endsWith('\r') ? line.slice(0, -1) : line);
  try {
    for await (const chunk of input) {
      let start = 0;
      let nl = chunk.indexOf('\n');
      while (nl !== -1) {
        const tail = chunk.slice(start, nl);
        if (pieces.length) {
          pieces.push(tail);
          yield withoutCr(pieces.join(''));
          pieces = [];
        } else {
          yield withoutCr(tail);
        }
        start = nl + 1;
        nl = chunk.indexOf('\n', start);
      }
      if (start < chunk.length) pieces.push(start === 0 ? chunk : chunk.slice(start));
    }
    if (pieces.length) yield withoutCr(pieces.join(''));
  } finally {
    await input.return(undefined);
  }
}
