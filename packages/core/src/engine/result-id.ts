import { hash } from 'node:crypto';

/**
 * Deterministic result ids: the same (runId, session, provider, metric, level, measured element) always gives the
 * same id, so re-running with a runId overwrites results in a store instead of duplicating them.
 *
 * The (runId, session, provider, name, level) part is hashed once per task with SHA-256 (64 bits kept); the measured
 * element id is mixed in with a fast 64-bit string hash. Formatted like a UUID (8-4-4-4-12 hex). Per result this
 * costs one small flat string: results are produced by the hundred thousand, and garbage is what slows them down.
 */
export function resultIdPrefix(runId: string, sessionId: string, provider: string, name: string, level: string): string {
  return hash('sha256', `${runId}\u0000${sessionId}\u0000${provider}\u0000${name}\u0000${level}`, 'hex').slice(0, 16);
}

/** `prefix` (16 hex digits from resultIdPrefix) formatted as the first three UUID groups plus the dash after them. */
export function resultIdHead(prefix: string): string {
  return `${prefix.slice(0, 8)}-${prefix.slice(8, 12)}-${prefix.slice(12, 16)}-`;
}

export function resultId(prefix: string, measuredId: string): string {
  return resultIdHead(prefix) + elementPart(measuredId);
}

/** The id of a result given its task's `resultIdHead`. */
export function resultIdFromHead(head: string, measuredId: string): string {
  return head + elementPart(measuredId);
}

const HEX_CODES = Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
const DASH = '-'.charCodeAt(0);
const h = (n: number, shift: number): number => HEX_CODES[(n >>> shift) & 15] as number;

/** `xxxx-xxxxxxxxxxxx` from the 64-bit hash of the measured id, as one flat string. */
function elementPart(measuredId: string): string {
  const [hi, lo] = mix64(measuredId);
  return String.fromCharCode(
    h(hi, 28), h(hi, 24), h(hi, 20), h(hi, 16), DASH,
    h(hi, 12), h(hi, 8), h(hi, 4), h(hi, 0),
    h(lo, 28), h(lo, 24), h(lo, 20), h(lo, 16), h(lo, 12), h(lo, 8), h(lo, 4), h(lo, 0),
  );
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
