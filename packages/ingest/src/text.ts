/**
 * The text of a trace file, whatever its bytes: UTF-8 (with or without a byte order mark), UTF-16 LE or BE with a
 * byte order mark (what a Windows shell redirect writes), and any of these gzipped (told by the magic bytes, not the
 * name). The mark is no part of the text, so the lines and columns counted in it are the ones an editor shows.
 */
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createGunzip, gunzipSync } from 'node:zlib';
import { errorMessage, IngestError } from './errors.js';

export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be';

export interface FileEncoding {
  gzip: boolean;
  encoding: TextEncoding;
}

const PLAIN: FileEncoding = Object.freeze({ gzip: false, encoding: 'utf-8' });

const isGzip = (b: Uint8Array) => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;

/** The encoding its first bytes (after gunzip) announce: a UTF-16 byte order mark, else UTF-8. */
function textEncoding(b: Uint8Array): TextEncoding {
  if (b.length >= 2 && b[0] === 0xff && b[1] === 0xfe) return 'utf-16le';
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) return 'utf-16be';
  return 'utf-8';
}

/** Opens `path` for reading, or an IngestError naming it. */
async function openFile(path: string) {
  try {
    return await open(path, 'r');
  } catch (err) {
    throw new IngestError(`cannot open: ${errorMessage(err)}`, path, undefined, { cause: err });
  }
}

/** How the file is encoded, from its first bytes (gunzipped when they are gzip's). */
export async function fileEncoding(path: string): Promise<FileEncoding> {
  const fh = await openFile(path);
  try {
    const head = Buffer.alloc(4096);
    const { bytesRead } = await fh.read(head, 0, head.length, 0);
    const bytes = head.subarray(0, bytesRead);
    if (!isGzip(bytes)) return textEncoding(bytes) === 'utf-8' ? PLAIN : { gzip: false, encoding: textEncoding(bytes) };
    return { gzip: true, encoding: textEncoding(await gunzippedHead(path)) };
  } finally {
    await fh.close();
  }
}

/** The first bytes of a gzipped file, uncompressed (a few are enough to see a byte order mark). */
async function gunzippedHead(path: string): Promise<Uint8Array> {
  const input = createReadStream(path, { start: 0, end: 64 * 1024 - 1 }).pipe(createGunzip({ finishFlush: 2 /* Z_SYNC_FLUSH */ }));
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) if (chunk.length >= 2) return chunk;
  } catch {
    // A head cut off mid-stream, or a corrupt file: the full read says what is wrong.
  } finally {
    input.destroy();
  }
  return new Uint8Array();
}

/** Decoded text, chunk by chunk (UTF-8 files straight from the file, as before: the fast path of big JSON Lines). */
export async function* textChunks(path: string, chunkBytes: number, encoding?: FileEncoding): AsyncGenerator<string> {
  const enc = encoding ?? (await fileEncoding(path));
  if (!enc.gzip && enc.encoding === 'utf-8') {
    yield* utf8Chunks(path, chunkBytes);
    return;
  }
  const raw: Readable = createReadStream(path, { highWaterMark: chunkBytes });
  const bytes = enc.gzip ? raw.pipe(createGunzip()) : raw;
  // fatal: false keeps a stray bad byte as U+FFFD, as the UTF-8 path does.
  const decoder = new TextDecoder(enc.encoding);
  try {
    for await (const chunk of bytes as AsyncIterable<Buffer>) {
      const text = decoder.decode(chunk, { stream: true });
      if (text !== '') yield text;
    }
    const rest = decoder.decode();
    if (rest !== '') yield rest;
  } catch (err) {
    // Said by the reader, which knows the line it got to: `cannot read: gzip: unexpected end of file`.
    throw new Error(`${enc.gzip ? 'gzip: ' : ''}${errorMessage(err)}`, { cause: err });
  } finally {
    raw.destroy();
    if (bytes !== raw) bytes.destroy();
  }
}

/** Chunks read between two turns of the event loop: about 1 MB at the row lists' chunk size. */
const CHUNKS_PER_TURN = 8;

/**
 * A UTF-8 file's text, `chunkBytes` at a time, read into one buffer again and again. A read stream allocated a new
 * buffer per chunk and sent each read through the thread pool: 40–80 ms of CPU on a 72 MB file, about as much as
 * the reads themselves. A read here is a copy from the page cache, made synchronously; every few chunks the event loop
 * gets a turn, so timers, signals and other requests are not held up by a big file.
 */
async function* utf8Chunks(path: string, chunkBytes: number): AsyncGenerator<string> {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(chunkBytes);
    // Decodes as the read stream's utf8 encoding did (a character split between two reads is kept whole).
    const decoder = new StringDecoder('utf8');
    let first = true;
    for (let reads = 1; ; reads++) {
      const read = readSync(fd, buffer, 0, chunkBytes, null);
      if (read === 0) break;
      const text = decoder.write(read === chunkBytes ? buffer : buffer.subarray(0, read));
      if (text !== '') {
        yield first ? withoutMark(text) : text;
        first = false;
      }
      if (reads % CHUNKS_PER_TURN === 0) await nextTurn();
    }
    const rest = decoder.end();
    if (rest !== '') yield first ? withoutMark(rest) : rest;
  } finally {
    closeSync(fd);
  }
}

const withoutMark = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/** The whole decoded text of a file (no byte order mark); an IngestError naming it when it cannot be read. */
export async function readText(path: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw new IngestError(`cannot read: ${errorMessage(err)}`, path, undefined, { cause: err });
  }
  return decodeBytes(bytes, path);
}

/** Bytes of a file → its text, gunzipped and decoded by their byte order mark. */
export function decodeBytes(bytes: Buffer, path: string): string {
  let plain: Buffer = bytes;
  if (isGzip(bytes)) {
    try {
      plain = gunzipSync(bytes);
    } catch (err) {
      throw new IngestError(`cannot read (gzip): ${errorMessage(err)}`, path, undefined, { cause: err });
    }
  }
  const encoding = textEncoding(plain);
  // TextDecoder drops the byte order mark; Buffer's UTF-8 decoding is the faster one for the common case.
  return encoding === 'utf-8' ? withoutMark(plain.toString('utf8')) : new TextDecoder(encoding).decode(plain);
}
