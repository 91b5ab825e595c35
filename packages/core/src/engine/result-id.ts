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

/** Reused buffer the 36 characters of an id are written into (one flat Latin-1 string is then cut from it). */
const ID_BYTES = Buffer.alloc(36);

/** The id of a result given its task's head: one flat 36-character string, no intermediate strings. */
export function resultIdFromHead(head: ResultIdHead, measuredId: string): string {
  const b = ID_BYTES;
  b.set(head, 0);
  const [hi, lo] = mix64(measuredId);
  b[19] = HEX_CODES[hi >>> 28] as number;
  b[20] = HEX_CODES[(hi >>> 24) & 15] as number;
  b[21] = HEX_CODES[(hi >>> 20) & 15] as number;
  b[22] = HEX_CODES[(hi >>> 16) & 15] as number;
  b[23] = DASH;
  b[24] = HEX_CODES[(hi >>> 12) & 15] as number;
  b[25] = HEX_CODES[(hi >>> 8) & 15] as number;
  b[26] = HEX_CODES[(hi >>> 4) & 15] as number;
  b[27] = HEX_CODES[hi & 15] as number;
  for (let i = 0; i < 8; i++) b[28 + i] = HEX_CODES[(lo >>> (28 - 4 * i)) & 15] as number;
  return b.toString('latin1', 0, 36);
}

const pair: [number, number] = [0, 0];

/** cyrb53's mixing with both 32-bit lanes kept: [high, low] (the returned pair is reused). */
function mix64(text: string): [number, number] {
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
  pair[0] = h2 >>> 0;
  pair[1] = h1 >>> 0;
  return pair;
}

/** 64-bit non-cryptographic string hash, as 16 hex digits. */
export function hash64(text: string): string {
  const [hi, lo] = mix64(text);
  return hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
}
