import { Buffer } from 'node:buffer';
import { hash } from 'node:crypto';

/**
 * Deterministic result ids: the same (runId, session, provider, metric, level, measured element) always gives the
 * same id, so re-running with a runId overwrites results in a store instead of duplicating them.
 *
 * (runId, session) is hashed once per session with SHA-256; each task mixes that digest with (provider, name, level)
 * into a 64-bit prefix, and each result mixes in its measured element id (64 more bits) — a fast non-cryptographic
 * hash for the parts computed hundreds of thousands of times. Formatted like a UUID (8-4-4-4-12 hex). Per result this
 * costs one flat string and nothing else: results are produced by the hundred thousand, and garbage slows them down.
 */
export function sessionDigest(runId: string, sessionId: string): string {
  return hash('sha256', `${runId}\u0000${sessionId}`, 'hex').slice(0, 16);
}

/** 16 hex digits identifying one task (metric at a level) of one session run. */
export function taskIdPrefix(digest: string, provider: string, name: string, level: string): string {
  return hash64(`${digest}\u0000${provider}\u0000${name}\u0000${level}`);
}

export function resultIdPrefix(runId: string, sessionId: string, provider: string, name: string, level: string): string {
  return taskIdPrefix(sessionDigest(runId, sessionId), provider, name, level);
}

const HEX_CODES = Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
const DASH = '-'.charCodeAt(0);

/** A task's id prefix prepared for `resultIdFromHead`: the bytes of the UUID's first 19 characters (`xxxxxxxx-xxxx-xxxx-`). */
export type ResultIdHead = Uint8Array;

export function resultIdHead(prefix: string): ResultIdHead {
  const head = new Uint8Array(19);
  for (let i = 0, j = 0; i < 16; i++, j++) {
    if (i === 8 || i === 12) head[j++] = DASH;
    head[j] = prefix.charCodeAt(i);
  }
  head[18] = DASH;
  return head;
}

export function resultId(prefix: string, measuredId: string): string {
  return resultIdFromHead(resultIdHead(prefix), measuredId);
}

const hex = (nibble: number): number => HEX_CODES[nibble & 15] as number;

/**
 * The id of a result given its task's head: one flat 36-character string, no intermediate strings. String.fromCharCode
 * with every code as an argument builds it in one step (about three times faster than cutting it from a Buffer).
 */
export function resultIdFromHead(head: ResultIdHead, measuredId: string): string {
  const h = head;
  const hash = mix64(measuredId);
  const hi = hash[0] as number;
  const lo = hash[1] as number;
  return String.fromCharCode(
    h[0] as number, h[1] as number, h[2] as number, h[3] as number, h[4] as number, h[5] as number,
    h[6] as number, h[7] as number, h[8] as number, h[9] as number, h[10] as number, h[11] as number,
    h[12] as number, h[13] as number, h[14] as number, h[15] as number, h[16] as number, h[17] as number,
    h[18] as number,
    hex(hi >>> 28), hex(hi >>> 24), hex(hi >>> 20), hex(hi >>> 16), DASH,
    hex(hi >>> 12), hex(hi >>> 8), hex(hi >>> 4), hex(hi),
    hex(lo >>> 28), hex(lo >>> 24), hex(lo >>> 20), hex(lo >>> 16), hex(lo >>> 12), hex(lo >>> 8), hex(lo >>> 4), hex(lo),
  );
}

/** Length of a result id (a UUID's 36 characters). */
export const RESULT_ID_LENGTH = 36;

/** Characters of an id that depend on the measured element only (`xxxx-xxxxxxxxxxxx`, after the task's 19). */
const TAIL_LENGTH = 17;

/**
 * The element half of the ids of `measured`, as bytes (17 per element): the same for every task measuring these
 * elements, so the engine hashes each element once per session rather than once per metric.
 */
export function resultIdTails(measured: ReadonlyArray<{ readonly id: string }>): Uint8Array {
  const t = new Uint8Array(measured.length * TAIL_LENGTH);
  for (let i = 0; i < measured.length; i++) writeTail(t, i * TAIL_LENGTH, (measured[i] as { readonly id: string }).id);
  return t;
}

function writeTail(t: Uint8Array, at: number, measuredId: string): void {
  const hash = mix64(measuredId);
  const hi = hash[0] as number;
  const lo = hash[1] as number;
  t[at] = hex(hi >>> 28);
  t[at + 1] = hex(hi >>> 24);
  t[at + 2] = hex(hi >>> 20);
  t[at + 3] = hex(hi >>> 16);
  t[at + 4] = DASH;
  t[at + 5] = hex(hi >>> 12);
  t[at + 6] = hex(hi >>> 8);
  t[at + 7] = hex(hi >>> 4);
  t[at + 8] = hex(hi);
  for (let k = 0; k < 8; k++) t[at + 9 + k] = hex(lo >>> (28 - 4 * k));
}

/**
 * The ids of one task's results, for elements measured in this order, written into one string: the id of element i
 * is `block.slice(36 * i, 36 * i + 36)` (see `resultIdAt`). One Buffer-to-string conversion per task instead of one
 * string per id, and each slice is a V8 sliced string (flat, 32 bytes, no copy) where a copied id takes 56 bytes:
 * ids are made by the hundred thousand and stay alive until the session is returned. `tails` are the elements'
 * `resultIdTails`, when already made for another task.
 */
export function resultIdBlock(
  head: ResultIdHead,
  measured: ReadonlyArray<{ readonly id: string }>,
  tails?: Uint8Array,
): string {
  const n = measured.length;
  const b = scratch(n * RESULT_ID_LENGTH);
  for (let i = 0, at = 0, from = 0; i < n; i++, at += RESULT_ID_LENGTH, from += TAIL_LENGTH) {
    b.set(head, at);
    if (tails) for (let k = 0; k < TAIL_LENGTH; k++) b[at + 19 + k] = tails[from + k] as number;
    else writeTail(b, at + 19, (measured[i] as { readonly id: string }).id);
  }
  return b.toString('latin1', 0, n * RESULT_ID_LENGTH);
}

/**
 * One buffer the blocks are written into (the string is a copy), so that a task allocates no external memory, which
 * V8 counts towards its next garbage collection. Kept up to 4 MB (116,508 ids); a larger task gets its own.
 */
const SCRATCH_LIMIT = 4 * 1024 * 1024;
let scratchBytes = Buffer.alloc(0);

function scratch(size: number): Buffer {
  if (size > SCRATCH_LIMIT) return Buffer.allocUnsafe(size);
  if (scratchBytes.length < size) scratchBytes = Buffer.alloc(Math.min(SCRATCH_LIMIT, Math.max(size, 2 * scratchBytes.length, 4096)));
  return scratchBytes;
}

/** The id of element i of a `resultIdBlock`. */
export function resultIdAt(block: string, i: number): string {
  return block.slice(i * RESULT_ID_LENGTH, (i + 1) * RESULT_ID_LENGTH);
}

const pair = new Uint32Array(2);

/**
 * cyrb53's mixing with both 32-bit lanes kept: [high, low] (the returned pair is reused; read it by index — array
 * destructuring goes through the iterator protocol, which allocates until the caller is optimised).
 */
function mix64(text: string): Uint32Array {
  let h1 = 0xdeadbeef | 0;
  let h2 = 0x41c6ce57 | 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  pair[0] = h2;
  pair[1] = h1;
  return pair;
}

/** 64-bit non-cryptographic string hash, as 16 hex digits. */
export function hash64(text: string): string {
  const hash = mix64(text);
  const hi = hash[0] as number;
  const lo = hash[1] as number;
  return hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
}
